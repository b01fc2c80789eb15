import Foundation
import GalleryNode

/// `gallery serve DIR [--name NAME] [--listen HOST:PORT] [--peer HOST:PORT]... [--secret-file FILE]`:
/// runs a node in the foreground until SIGINT or SIGTERM.
struct ServeCommand {
    let arguments: [String]

    struct Options {
        var directory: URL
        var name: String?
        var listen = Endpoint(host: "127.0.0.1", port: 0)
        var peers: [Endpoint] = []
        var secretFile: URL?
    }

    func parse() throws(CommandFailure) -> Options {
        var directory: String?
        var options = Options(directory: URL(fileURLWithPath: "."))
        var rest = arguments[...]
        func value(_ flag: String) throws(CommandFailure) -> String {
            guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                throw .usage("\(flag) needs a value", Usage.serve)
            }
            return next
        }
        func endpoint(_ flag: String) throws(CommandFailure) -> Endpoint {
            let text = try value(flag)
            guard let endpoint = Endpoint(text) else { throw .usage("\(flag): \"\(text)\" is not HOST:PORT", Usage.serve) }
            return endpoint
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--name": options.name = try value(argument)
            case "--listen": options.listen = try endpoint(argument)
            case "--peer": options.peers.append(try endpoint(argument))
            case "--secret-file": options.secretFile = URL(fileURLWithPath: try value(argument))
            case let flag where flag.hasPrefix("-"):
                throw .usage("unknown option \(flag)", Usage.serve)
            default:
                guard directory == nil else { throw .usage("serve takes one DIR", Usage.serve) }
                directory = argument
            }
        }
        guard let directory else { throw .usage("serve needs a DIR", Usage.serve) }
        options.directory = URL(fileURLWithPath: directory)
        return options
    }

    /// Runs the node; returns when a signal stopped it.
    func run() throws(CommandFailure) {
        let options = try parse()
        // Before anything can print "listening on": a signal sent right after it must stop the node.
        let stopped = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stopped.signal() }
            source.resume()
            signal(signalNumber, SIG_IGN)
            sources.append(source)
        }
        let server: GalleryServer
        let endpoint: Endpoint?
        do {
            server = try GalleryServer(
                directory: options.directory, name: options.name, listen: options.listen,
                peers: options.peers, secretFile: options.secretFile)
            if server.recovery.droppedBytes > 0 {
                FileHandle.standardError.write(Data("gallery: op log: \(server.recovery)\n".utf8))
            }
            for note in server.startup.notes {
                FileHandle.standardError.write(Data("gallery: \(note)\n".utf8))
            }
            endpoint = try server.start()
        } catch {
            throw .failed(error.localizedDescription)
        }
        FileHandle.standardOutput.write(Data("listening on \(endpoint?.description ?? "nothing")\n".utf8))
        stopped.wait()
        server.stop()
        _ = sources
    }
}
