import Foundation
import SimCLI

exit(SyncSimCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
