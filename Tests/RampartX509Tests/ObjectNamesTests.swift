import RampartX509
import Testing

struct ObjectNamesTests {
    @Test("the built-in table used on Apple platforms gives OpenSSL's short name for every identifier it holds")
    func builtInMatchesOpenSSL() throws {
        for (dotted, name) in ObjectNames.builtIn.sorted(by: { $0.key < $1.key }) {
            let identifier = try ASN1ObjectIdentifier(dotted)
            #expect(OpenSSLObjectNames.shortName(for: identifier) == name, "\(dotted)")
        }
    }
}
