import Foundation
import RampartCLI

let status = await Rampart.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
