#if canImport(SwiftUI)
import Foundation
import RampartApple
import RampartAttestClient
#if canImport(RampartPointsCore)
import RampartPointsCore  // when Sources/Core is a package target; in an app target the files are compiled in
#endif
import SwiftUI

/// One screen: sign in, use points with a signed request, read the feed with an access token, sign out. It draws
/// ``PointsModel/Screen`` and calls ``PointsModel``, where all the logic is (tested on Linux).
struct ContentView: View {
    @State private var user = ""
    @State private var password = ""
    @State private var screen = PointsModel.Screen(user: nil, status: "Signed out", canSign: false)
    @State private var model: PointsModel?

    var body: some View {
        VStack(spacing: 16) {
            if let signedIn = screen.user {
                Text("Signed in as \(signedIn)")
                Button("Use 100 points") { run { await $0.use(100) } }.disabled(!screen.canSign)
                Button("Read the feed") { run { await $0.readFeed() } }.disabled(!screen.canSign)
                Button("Sign out") { run { await $0.signOut() } }
            } else {
                TextField("User", text: $user).textFieldStyle(.roundedBorder)
                SecureField("Password", text: $password).textFieldStyle(.roundedBorder)
                Button("Sign in") {
                    let (user, password) = (user, password)
                    run { await $0.signIn(user: user, password: password) }
                }
            }
            Text(screen.status).font(.footnote).multilineTextAlignment(.center)
        }
        .padding()
        .task { run { await $0.restore() } }
    }

    /// Runs `action` on the model (made on first use from the app's Info.plist) and shows the screen it returns.
    private func run(_ action: @escaping @Sendable (PointsModel) async -> PointsModel.Screen) {
        Task { @MainActor in
            do {
                let model = try self.model ?? Self.makeModel()
                self.model = model
                screen = await action(model)
            } catch {
                screen.status = "The app's Info.plist cannot be read: \(error)"
            }
        }
    }

    private static func makeModel() throws -> PointsModel {
        guard let url = Bundle.main.url(forResource: "Info", withExtension: "plist") else { throw URLError(.badURL) }
        let environment = try AppEnvironment(infoPlist: try Data(contentsOf: url)) { decision in
            print("pinning:", decision.message)  // send it to your reporting endpoint instead
        }
        return PointsModel(transport: environment.transport, device: environment.device, secrets: environment.secrets)
    }
}
#endif
