import Foundation
import RampartCLICore

let status = await Rampart.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
