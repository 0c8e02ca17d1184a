import Foundation
import RampartLoadReport

// rampart-load: see LoadOptions.usage. Prints one JSON object (LoadReport) on success; exit 2 for bad usage, 1 when
// the run could not be made (registration refused, server unreachable).
let arguments = Array(CommandLine.arguments.dropFirst())
let options: LoadOptions
do {
    guard let parsed = try LoadOptions.parse(arguments) else {
        print(LoadOptions.usage)
        exit(0)
    }
    options = parsed
} catch {
    FileHandle.standardError.write(Data("rampart-load: \(error)\n".utf8))
    exit(2)
}
do {
    print(try LoadRun.run(options).jsonText())
    exit(0)
} catch {
    FileHandle.standardError.write(Data("rampart-load: \(error)\n".utf8))
    exit(1)
}
