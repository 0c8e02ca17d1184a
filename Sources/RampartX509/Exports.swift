@_exported public import struct RampartASN1.ASN1Error
// The DER reader and writer moved to RampartASN1 too; they throw ASN1Error, which this module's entry points turn
// into X509Error.
@_exported public import struct RampartASN1.ASN1Identifier
@_exported public import struct RampartASN1.ASN1Node
@_exported public import struct RampartASN1.ASN1ObjectIdentifier
@_exported public import enum RampartASN1.ASN1Time
@_exported public import enum RampartASN1.DER
@_exported public import struct RampartASN1.DERWriter
// The PEM codec moved to RampartASN1, below RampartCrypto, so that keys and certificates share it; callers that
// import only this module keep reading PEM through it.
@_exported public import struct RampartASN1.PEMDocument
