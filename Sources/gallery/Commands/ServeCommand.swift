import Foundation
import GalleryIO
import GalleryHost
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
        // Before anything can print "listening on" and before any other thread exists: SIGINT and
        // SIGTERM are blocked in every thread (threads inherit the mask) and taken by one thread
        // with sigwait, so that a signal sent at any moment stops the node and none is lost.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        // A file size limit makes writes fail (EFBIG), which the node reports and retries, rather
        // than kill it.
        signal(SIGXFSZ, SIG_IGN)
        let stopped = DispatchSemaphore(value: 0)
        let awaited = signals
        Thread.detachNewThread {
            var mask = awaited
            var received: Int32 = 0
            while sigwait(&mask, &received) != 0 {}
            stopped.signal()
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
    }
}
