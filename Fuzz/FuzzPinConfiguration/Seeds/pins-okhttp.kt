// Written by `rampart pinset --format okhttp`: OkHttp CertificatePinner (Kotlin).
// Note: sample.rampart.example: OkHttp matches each pin against every certificate of the chain; the CA-only rule of NSPinnedCAIdentities is not kept.
val certificatePinner = CertificatePinner.Builder()
    .add("sample.rampart.example", "sha256/pp4VdWQrgevoXUACSVa4knJiHdYwB2MZKVt8eW+YA2U=", "sha256/NmsyPoJh8zpF85Ay1LUDC6ajCBg/LutawWt0TSIXF/8=", "sha256/ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=")
    .add("*.sample.rampart.example", "sha256/pp4VdWQrgevoXUACSVa4knJiHdYwB2MZKVt8eW+YA2U=", "sha256/NmsyPoJh8zpF85Ay1LUDC6ajCBg/LutawWt0TSIXF/8=", "sha256/ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=")
    .build()
