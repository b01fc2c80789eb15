import Foundation

/// The `gallery` command line: dispatches to a command and maps its outcome to an exit code.
func runGallery(_ arguments: [String]) -> Int32 {
    InheritedSignals.restoreDefaults()
    do {
        guard let command = arguments.first else {
            throw CommandFailure.usage("missing command", Usage.overview)
        }
        let rest = Array(arguments.dropFirst())
        if command == "-C" {
            guard let directory = rest.first else { throw CommandFailure.usage("-C needs a DIR", Usage.overview) }
            try NodeCommand(directory: URL(fileURLWithPath: directory), arguments: Array(rest.dropFirst())).run()
            return ExitCode.success.rawValue
        }
        switch command {
        case "simulate":
            print(try SimulateCommand(arguments: rest).run())
        case "serve":
            try ServeCommand(arguments: rest).run()
        case "help", "--help", "-h":
            if let topic = rest.first {
                guard let usage = Usage.of(topic) else {
                    throw CommandFailure.usage("unknown command \"\(topic)\"", Usage.overview)
                }
                print(usage)
            } else {
                print(Usage.overview)
            }
        default:
            throw CommandFailure.usage("unknown command \"\(command)\"", Usage.overview)
        }
        return ExitCode.success.rawValue
    } catch let failure as CommandFailure {
        FileHandle.standardError.write(Data("gallery: \(failure.message)\n".utf8))
        if let usage = failure.usage { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
        return failure.code.rawValue
    } catch {
        FileHandle.standardError.write(Data("gallery: \(error.localizedDescription)\n".utf8))
        return ExitCode.failure.rawValue
    }
}

exit(runGallery(Array(CommandLine.arguments.dropFirst())))
