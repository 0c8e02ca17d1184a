// Written by `rampart pinset --format okhttp`: OkHttp CertificatePinner (Kotlin).
// Note: sample.rampart.example: OkHttp matches each pin against every certificate of the chain; the CA-only rule of NSPinnedCAIdentities is not kept.
val certificatePinner = CertificatePinner.Builder()
    .add("sample.rampart.example", "sha256/kc6PDjPXZ4nTYiuKQfiwavr9560qPvgJ86AqPYjRjg8=", "sha256/1Uf7k4lYgNuSNY15YzEWMACk5yTOvxZUZfSEP2eodBc=", "sha256/ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=")
    .add("*.sample.rampart.example", "sha256/kc6PDjPXZ4nTYiuKQfiwavr9560qPvgJ86AqPYjRjg8=", "sha256/1Uf7k4lYgNuSNY15YzEWMACk5yTOvxZUZfSEP2eodBc=", "sha256/ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=")
    .build()
