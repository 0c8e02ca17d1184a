import Foundation
import RampartServiceCLI

let status = await RampartService.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
