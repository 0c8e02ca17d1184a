/// The store's protocol, items, queries and errors live in RampartSecretStore (shared with apps); the backends here
/// (the encrypted file vault, Secret Service) implement it for servers and tools, so importing RampartVault gives both.
@_exported public import RampartSecretStore
