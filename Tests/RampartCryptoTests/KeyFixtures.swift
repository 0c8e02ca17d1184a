import TestSupport

/// Keys and signatures made for these tests with the OpenSSL 3.0 command line (`openssl genpkey`, `openssl pkcs8
/// -topk8 -nocrypt`, `openssl pkey -pubout`, `openssl dgst -sign`); Rampart's own vectors, not copied from elsewhere.
enum KeyFixtures {
    /// P-256 PKCS#8 PrivateKeyInfo (`openssl pkcs8 -topk8 -nocrypt`).
    static let p256PKCS8 = bytes(
        "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02010104203907e85d727cdaa06f50d81c853524c57ca970"
            + "a9733b76b62931ac4766c036b1a14403420004d0fad6cafa3d5e9deb53b4633c16188e6e3a77e7192e289787b28a2ebef62a4934f5"
            + "69fd3bf76459e76930f7531f24bf0b3b40a1e14833c02bcdee53054cbe7b")
    /// The private scalar of ``p256PKCS8``.
    static let p256Scalar = bytes("3907e85d727cdaa06f50d81c853524c57ca970a9733b76b62931ac4766c036b1")
    /// The SubjectPublicKeyInfo of ``p256PKCS8``.
    static let p256SPKI = bytes(
        "3059301306072a8648ce3d020106082a8648ce3d03010703420004d0fad6cafa3d5e9deb53b4633c16188e6e3a77e7192e289787b28a2"
            + "ebef62a4934f569fd3bf76459e76930f7531f24bf0b3b40a1e14833c02bcdee53054cbe7b")
    /// A secp256k1 PKCS#8 key (a curve Rampart does not support).
    static let secp256k1PKCS8 = bytes(
        "308184020100301006072a8648ce3d020106052b8104000a046d306b02010104200db6584a3bf39660e94d168d5bc0f796e8b5268fa6f3"
            + "fbf6d719aa59c4f17a2da1440342000429691925f83a705b4c0494b07513112c8dcf58a8ada0c8e390e105cdd7ff02d03bda13f3b9"
            + "5d5dff123e1e0ba29ed34aa59c930400be418b20bffdbddaa322d8")
    /// A secp256k1 SubjectPublicKeyInfo.
    static let secp256k1SPKI = bytes(
        "3056301006072a8648ce3d020106052b8104000a034200045948547812b8c4ce3adc4e54bbf5edea3a1f6f843a706c65aac0d8543c67e1"
            + "05f45bdf9ded0c1bfee898a0103bcab2735f70ff9c2ef39a5f51c42d0a56871c4e")
    /// A P-256 SubjectPublicKeyInfo with explicit curve parameters (`openssl ecparam -param_enc explicit`).
    static let p256ExplicitSPKI = bytes(
        "3082014b3082010306072a8648ce3d02013081f7020101302c06072a8648ce3d0101022100ffffffff000000010000000000000000000"
            + "00000ffffffffffffffffffffffff305b0420ffffffff00000001000000000000000000000000fffffffffffffffffffffffc04205ac"
            + "635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b031500c49d360886e704936a6678e1139d26b7819f7e9"
            + "00441046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bc"
            + "e33576b315ececbb6406837bf51f5022100ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551020101"
            + "03420004aa17417584d1d1765e96e0be88acbd58ab6abc8614f9e62f742e28ad7f9d4362e7fab60eb188499b3d49ac47b3dedd195b"
            + "d79e83ca7a2181c35c3e1251d85054")
    /// An X25519 SubjectPublicKeyInfo (a key-agreement key, not for signatures).
    static let x25519SPKI = bytes(
        "302a300506032b656e03210089e58c102d58169d88fa438ca1507998f570671715efc010735afde762ba304a")
    /// An Ed448 SubjectPublicKeyInfo (`openssl genpkey -algorithm ED448`).
    static let ed448SPKI = bytes(
        "3043300506032b6571033a00fa5d9e7c7cfab926224d02f16e11c59b21ee3a33bd3c480f91a0f21635ee47b5139ef7bfb46d13b49a9d0"
            + "ea87271d422586ea02fc51f1ebb00")
    /// A second Ed448 SubjectPublicKeyInfo, with ``ed448SignatureOverABC`` (`openssl pkeyutl -sign -rawin`).
    static let ed448SignerSPKI = bytes(
        "3043300506032b6571033a006d338cb9e678a6e22c65db1903632160ea966c620b546d5e004fa4fd5f76bd8c1e8a5f44ca1c1921de9537"
            + "93d1dca75e1f1da03d2aa736ed80")
    /// An Ed448 signature over `abc` by ``ed448SignerSPKI``'s key.
    static let ed448SignatureOverABC = bytes(
        "356ae4b4849bea681f49fb0b7a8490ecb99e615e451f584d46bc0928e49dfcbbe31b696d59cef6c7153105dd1b964a00fa3c0eefc863b1"
            + "6e00d33eaa0c04c3a84a1759d71dcd3b5b4cf2f940cfe9fc52b70cff55fbc5e9d4e925db7efa3be62596d026842be512b736325cf7"
            + "29c861a71700")
    /// An Ed25519 PKCS#8 PrivateKeyInfo (valid PKCS#8, but not an EC key).
    static let ed25519PKCS8 = bytes(
        "302e020100300506032b657004220420384d5f949dff3df17217da5666b44d8b3bcb845404e34ea73f8998de2c12e0dd")
    /// An RSA-PSS (`id-RSASSA-PSS`) 2048-bit SubjectPublicKeyInfo restricted to SHA-256 and salt ≥ 32.
    static let rsaPSSSPKI = bytes(
        "30820138302306092a864886f70d01010a3016a00f300d06096086480165030402010500a2030201200382010f003082010a02820101"
            + "00a95403a3d9637450c9533d6b01522f0e4c39fb8942ef00efe04195ff62dd13c6c5c7dbd3a72c070038f1cc658fec2642c5eff7d3"
            + "83dd854efb2db3e8c24eb2342445f8e18f05138f6e21f7e8e21d6caf684ce6fbb387c8d5d103708713e26eaef89c2ad12d42e7076d"
            + "5762a9a5373dfc6a2de804d1eb034269c6737a9afd34c01aeb7fa39f1e4524bf2cde15b475455148c38a012826b914ad7b58a70fa8"
            + "34f4c27af67d66f1eed9e3831d957dbf01d024e6308063c6739e5c2b96c901cfaa8d47f3cb62e9ae1be6e634a799f508186595223e"
            + "001e08dc6de8fb8901e468ac2097cce2054c79ff3b0cce65d26a68cf1390715e848e224b0e2954df08252925ed0203010001")
    /// A PSS (SHA-256, salt 32) signature over `abc` by ``rsaPSSSPKI``'s key.
    static let rsaPSSSignatureOverABC = bytes(
        "283db02f959cc390833b01033f99469ecbd2c2f4078339fd0f9872341e36972330f13b84076f640399831c1f486a1b67a2ecaf712e5d2b"
            + "f2e7681cd4b9f628edf6af46ad288ae2a7ee1380e06fdb563424968099a6c47e1718c1f46d4f4ac8a0fcb23ba4e3c91f4c44cc9b638a"
            + "f0239c26b2960eca0c741e6634ac062cdc569a3083c993428c75fae6ece51d8d1548a260047fcbbebf377220a60844bd26f26d1aa4"
            + "6df44e49bb5a8132fb0ddb61cb34fb7de177021a66201691de996750e4653ccdde9015d9b82ce6d2e0224d58c0616a7f8b87fc0ff9"
            + "351929ef0b7c8ffe54de019c0d0ca33376521db36d109e0a4d2098d7980851cab3ed0629cd130f581b")
    /// A 1024-bit RSA SubjectPublicKeyInfo.
    static let rsa1024SPKI = bytes(
        "30819f300d06092a864886f70d010101050003818d0030818902818100bd9a465de268988459cd1508a80f8a65bb60a95116105dedf61"
            + "864a706096c4d700e4100eb16f3830f55a62bf793704a0a5ded0b2d5ed3a96c8311799ea73210e8a0b9154585682d803337b808520"
            + "18c5d276749dd5d899e61acc1cf2aeeffe2362e51ff65bbe1b7c4fe174d3231efd6cd97b77f3d0ccb5243cd7f3eb109ca5f020301"
            + "0001")
    /// A correct PKCS#1 v1.5 SHA-256 signature over `abc` by ``rsa1024SPKI``'s key (refused: the key is too small).
    static let rsa1024SignatureOverABC = bytes(
        "a44e5585fd716000100323a764c5606e2891c439ec94d2565796d59943f73e7333854c2cb499bcfecaebde0d516e58eb9fb0c56c5f77f8"
            + "93042d6da03c044462b2507ade27e4723d4e66970ee8a4bbce6840e5c63b1c8577c46de5955abff56f20a5a60dadfd3326217d1283dd"
            + "e5847100f33efc17d8f5cb4baf3e2e7418db48")
    /// A 2048-bit RSA PKCS#8 PrivateKeyInfo (`openssl genpkey -algorithm RSA | openssl pkcs8 -topk8 -nocrypt`), so
    /// the tests need not generate one.
    static let rsa2048PKCS8 = bytes(
        "308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100cb9f1f53aca9145f3d2e8502cc6bcf6bba"
            + "5d044515905369fe012b329127ae2fcfac92a21a53b411d358ab99d837331e6b5551d8686252ac999bb8caa8278905aeb6d0a6794ef94e"
            + "ab2cdd215b5c589ca13614f13e5f0e2094ab5618781d39cb3d298e404bee0c049dc4e142f6816997f32ab779793ed5fb6e65f125f6eb47"
            + "cb9b69528c888e1593760656329a0ed36654291dd59b4709fedba3ae34dd49abfe08d3989366f2a187a1a3e26c008acff2e312c154e2e7"
            + "d7a131ae3da43051982f60b9a39ee9bccaf8426544f890b730ca98aa0389b45f21fbbe573cf010fd673355810cf4070bb17d58534cc107"
            + "585218c567df0cbc694776fb6d766c3a05acd302030100010282010029fba2816599acf6200ebde50052003fd57a853d5b3f593b82e029"
            + "d070c64e2f5471dfffe54eb9d36d109cbd092c0471b2aeb243dceddcdef282fd7c67645367a508d387677ea57f9762962b61036ecfc89b"
            + "7680f11bb7357781c62c2063e23d29dcae144ab387add1fbbc784a8c0f4201a49e94c0af787e315a7a7899eb13efa44367fa5fc892abdb"
            + "7f16279e1a9afea6459fb0afed374206ef228b12c19c82bf95d0ac749bc4cd8008b89b8cd3819e45c0c0348863bfca692959b110761efd"
            + "48e7c01678bcb42bab4a8efbaa3284b8f144d5dfca56773090f8ee555bc8e9571473ab3cee3e4ba7a7e725c1a51fbb4aa3c46272464b13"
            + "092a8ef9375361da1902818100f31314d206549efb5dff03c226b6f5344610d8b88c10768f22898fb53692a8c9e78567ec65dfd396e562"
            + "101937b89658b2892614624a29c40ce4a92168f3d6f9dfd11cd9a869f558ccf44eea49be7666e228c603f296bf612d90b02c42f6eaa914"
            + "c1d1cc5d1ab282f48e8c97a6c7e96ff3889ab59e38e1a2329c55d396a57e6b02818100d672fa0cd99a0c4139d677e8d0bd6c4a73a317e0"
            + "1c1b7d6d3cd126b9fa7f5d6084748093f56d5fedbebe86f1a2332b76b77c3dc2aa4585cf68bfc9c232177cb1d5b9ee29347e83cf3af8ab"
            + "e62f701acdb19a290a444622879df62ead29ab2fa67505ad0ff912770bad236fd3d744db28962cb637dce7ef4dd80972659b5955390281"
            + "802bd42ff7e2ce55504bd594aee85e2afe7ef7c0ac1e0d45e36f3dd09cc3375499fb5611b40d767b6784fad69e456ed22532240aaab842"
            + "591f9197956b81ca1de43658355485ca7d43c2c8f685c640428730965b8610b2dfd53ceb0ee91c35fb7ffb4f2b6e27078e529098377f8c"
            + "c215346b7c21314853475400be31b7923d4afb0281803d81dac046c54d5083f3448f2d17b7709f3c1f03f36bdb0cb2cdd64aaf534a87fd"
            + "55a0ef4f0c60e042be48dc134693e7c7f6c58c08e449ddd45075e0d217347799326be1bba1b1d2853a7fab54ddd5823bb758a00e37037e"
            + "5c4b18d627c666b35a8b1739269a2a34da22f8d70cbe3e11a5090bf677d0ba2d5c9251125d7d40d902818100bdb31303bde0da8c767951"
            + "6a6d1a64f921eebddabf30d0149f7f11a578288404b40a1bd1a70d6559b03480c510e65487f2c741748e072dbbab62b0021705a72b820b"
            + "9028968dd41075f379ee2eb72a0a1abf8f5dffcf46a99db7a6a5ceb32063ada75aaae9494a1eac4f18b635bdac9e9a51c0f0bb719869a1"
            + "243ae2df41be43")
    /// A 512-bit RSA SubjectPublicKeyInfo (below the import floor).
    static let rsa512SPKI = bytes(
        "305c300d06092a864886f70d0101010500034b003048024100bfb5dfdac85211365803d871e284a66e1fdc3ee10d7b45070c8317d00b7a"
            + "f313160ea89b80a0149d1fe2d92d2d65eaab1049c898bf31cf7d70cdb0564b3907c30203010001")

    private static func bytes(_ hex: String) -> [UInt8] {
        guard let bytes = Hex.decode(hex) else { preconditionFailure("bad fixture hex") }
        return bytes
    }
}
