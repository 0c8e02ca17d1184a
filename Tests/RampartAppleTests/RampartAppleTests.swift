import RampartApple
import Testing

struct RampartAppleModuleTests {
    @Test("the adapters name the Apple frameworks they call")
    func frameworks() {
        #expect(RampartApple.frameworks.contains("Security"))
        #expect(RampartApple.frameworks.contains("DeviceCheck"))
    }
}
