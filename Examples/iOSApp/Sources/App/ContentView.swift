#if canImport(SwiftUI)
import Foundation
import RampartAttestClient
#if canImport(RampartPointsCore)
import RampartPointsCore  // when Sources/Core is a package target; in an app target the files are compiled in
#endif
import SwiftUI

/// One screen: sign in, then spend points; every answer is shown as the server gave it.
struct ContentView: View {
    @State private var userID = ""
    @State private var status = "Signed out"
    @State private var service: PointsService?

    var body: some View {
        VStack(spacing: 16) {
            TextField("User id", text: $userID).textFieldStyle(.roundedBorder)
            Button("Sign in and register") { Task { await signIn() } }
            Button("Use 100 points") { Task { await use(100) } }.disabled(service == nil)
            Text(status).font(.footnote).multilineTextAlignment(.center)
        }
        .padding()
    }

    private func environment() throws -> AppEnvironment {
        guard let url = Bundle.main.url(forResource: "Info", withExtension: "plist") else { throw URLError(.badURL) }
        return try AppEnvironment(infoPlist: try Data(contentsOf: url)) { decision in
            print("pinning:", decision.message)  // send it to your reporting endpoint instead
        }
    }

    @MainActor private func signIn() async {
        do {
            let environment = try environment()
            // Your backend's sign-in answers the session token; here the id stands in for it.
            try await environment.sessions.save(.init(userID: userID, token: UUID().uuidString))
            let points = PointsService(
                transport: environment.transport, device: environment.device, secrets: environment.secrets,
                sessions: environment.sessions)
            try await points.register()
            service = points
            status = "Signed in as \(userID); App Attest key registered"
        } catch {
            status = "Sign-in failed: \(error)"
        }
    }

    @MainActor private func use(_ amount: Int) async {
        guard let service else { return }
        do {
            switch try await service.use(amount) {
            case .spent(let balance): status = "Spent \(amount); balance \(balance)"
            case .refused(let code, let http): status = "Refused: \(http) \(code)"
            }
        } catch {
            status = "No answer: \(error)"
        }
    }
}
#endif
