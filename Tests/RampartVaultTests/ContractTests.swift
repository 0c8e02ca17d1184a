import RampartVault
import SecretStoreContract
import Testing

struct InMemoryContractTests {
    @Test("contract: in-memory backend", arguments: ContractCase.all)
    func contract(_ contractCase: ContractCase) async throws {
        try await contractCase.run(.vault(over: InMemoryBackend()))
    }
}

struct FileVaultContractTests {
    @Test("contract: encrypted file vault", arguments: ContractCase.all)
    func contract(_ contractCase: ContractCase) async throws {
        let directory = try TemporaryDirectory()
        let backend = try FileVault.open(at: directory.path("vault.db"), credential: .key(.init(randomByteCount: 32)))
        try await contractCase.run(.vault(over: backend))
    }
}
