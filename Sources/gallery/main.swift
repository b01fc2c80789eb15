import Foundation

/// The `gallery` command line: dispatches to a command and maps its outcome to an exit code.
func runGallery(_ arguments: [String]) -> Int32 {
    InheritedSignals.restoreDefaults()
    do {
        guard let word = arguments.first else {
            throw CommandFailure.usage("missing command", Usage.overview)
        }
        let rest = Array(arguments.dropFirst())
        if word == "-C" {
            guard let directory = rest.first else { throw CommandFailure.usage("-C needs a DIR", Usage.overview) }
            try NodeCommand(directory: URL(fileURLWithPath: directory), arguments: Array(rest.dropFirst())).run()
            return ExitCode.success.rawValue
        }
        let command = word == "--help" || word == "-h" ? .help : TopLevelCommand(rawValue: word)
        guard let command else { throw CommandFailure.usage("unknown command \"\(word)\"", Usage.overview) }
        var list = ArgumentList(rest, command: command.rawValue, usage: command.usage)
        switch command {
        case .simulate:
            print(try SimulateCommand(parsing: &list).run())
        case .serve:
            try ServeCommand(parsing: &list).run()
        case .help:
            let topic = list.optionalPositional()
            try list.expectEnd()
            guard let topic else {
                print(Usage.overview)
                break
            }
            guard let usage = Usage.of(topic) else { throw CommandFailure.usage("unknown command \"\(topic)\"", Usage.overview) }
            print(usage)
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
