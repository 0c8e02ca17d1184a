#if canImport(SwiftUI)
import RampartApple
#if canImport(RampartPointsCore)
import RampartPointsCore  // when Sources/Core is a package target; in an app target the files are compiled in
#endif
import SwiftUI

/// The example app: sign in, keep the token in the Keychain, register with App Attest, spend points with a signed
/// request over a pinned `URLSession`.
@main
struct RampartPointsApp: App {
    var body: some Scene {
        WindowGroup { ContentView() }
    }
}
#endif
