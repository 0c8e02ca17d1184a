@_exported public import struct RampartASN1.ASN1Error
// The PEM codec moved to RampartASN1, below RampartCrypto, so that keys and certificates share it; callers that
// import only this module keep reading PEM through it.
@_exported public import struct RampartASN1.PEMDocument
