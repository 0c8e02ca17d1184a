import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status = Bench.main(arguments)
exit(status)
