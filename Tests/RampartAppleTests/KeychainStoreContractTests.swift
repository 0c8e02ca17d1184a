import SecretStoreContract
import Testing

struct KeychainStoreContractTests {
    @Test("contract: KeychainStore over the simulated data protection keychain", arguments: ContractCase.all)
    func contract(_ contractCase: ContractCase) async throws {
        try await contractCase.run(SimulatedDeviceStore.maker())
    }
}
