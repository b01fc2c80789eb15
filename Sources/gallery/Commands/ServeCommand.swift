import Foundation
import GalleryHost
import GalleryIO
import GalleryNode
import GalleryWire

/// `gallery serve DIR [--name NAME] [--listen HOST:PORT] [--peer HOST:PORT]... [--secret-file FILE]
/// [--http [HOST:PORT]] [--announce HOST:PORT|none]...`: runs a node in the foreground until SIGINT or SIGTERM.
struct ServeCommand {
    /// What `serve` was asked.
    struct Options {
        var directory: URL
        var name: String?
        /// Nil: the port of the last run when free, else an ephemeral one (`GalleryServer`).
        var listen: Endpoint?
        var peers: [Endpoint] = []
        var secretFile: URL?
        /// Where the web page is served (`--http`), or nil.
        var http: Endpoint?
        /// What the node tells its peers it listens at (`--announce`); nil: its bound address.
        var announce: [Endpoint]?
        /// Which originals the node holds (`--keep`).
        var keep = KeepPolicy.thumbnails
        /// The most bytes of originals fetched on demand kept (`--cache-budget`); nil: no limit.
        var cacheBudget: Int?
        /// An invitation code to join a space with (`--join`).
        var join: InvitationCode?
    }

    let options: Options

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        var options = Options(directory: URL(fileURLWithPath: "."))
        options.name = try arguments.option("--name")
        if let listen = try arguments.option("--listen") { options.listen = try arguments.endpoint(listen, "--listen: ") }
        for peer in try arguments.options("--peer") { options.peers.append(try arguments.endpoint(peer, "--peer: ")) }
        let announce = try arguments.options("--announce")
        if announce == ["none"] {
            options.announce = []
        } else if !announce.isEmpty {
            options.announce = try announce.map { text throws(CommandFailure) in try arguments.endpoint(text, "--announce: ") }
        }
        options.secretFile = try arguments.option("--secret-file").map { URL(fileURLWithPath: $0) }
        if let code = try arguments.option("--join") {
            do {
                options.join = try InvitationCode(text: code)
            } catch {
                throw arguments.failure("--join: \(error)")
            }
            if options.secretFile != nil { throw arguments.failure("--join and --secret-file exclude each other") }
        }
        if let keep = try arguments.option("--keep") {
            guard let policy = KeepPolicy(rawValue: keep) else { throw arguments.failure("--keep: \(keep) is not all or thumbnails") }
            options.keep = policy
        }
        if let budget = try arguments.option("--cache-budget") {
            guard let bytes = Self.bytes(budget) else { throw arguments.failure("--cache-budget: \(budget) is not a number of bytes (e.g. 500M)") }
            options.cacheBudget = bytes
        }
        if let http = arguments.optionalValueOption("--http", accepts: { Endpoint($0) != nil }) {
            // 127.0.0.1 unless the user names another address.
            options.http = try http.map { text throws(CommandFailure) in try arguments.endpoint(text, "--http: ") }
                ?? Endpoint(host: "127.0.0.1", port: 0)
        }
        guard let directory = arguments.optionalPositional() else { throw arguments.failure("serve needs a DIR") }
        if arguments.optionalPositional() != nil { throw arguments.failure("serve takes one DIR") }
        try arguments.expectEnd()
        options.directory = URL(fileURLWithPath: directory)
        self.options = options
    }

    /// A byte count: digits, optionally followed by K, M or G (KiB, MiB, GiB); nil for anything else.
    static func bytes(_ text: String) -> Int? {
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier = 1
        if let last = text.last, let unit = multipliers[last] {
            digits = digits.dropLast()
            multiplier = unit
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value >= 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : bytes
    }

    /// Runs the node; returns when a signal stopped it.
    func run() throws(CommandFailure) {
        // Before any other thread exists, so that no arena is made past the limit.
        MallocArenas.limit()
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
                peers: options.peers, secretFile: options.secretFile, http: options.http,
                announce: options.announce, join: options.join
            ) { [options] configuration in
                configuration.keep = options.keep
                configuration.cacheBudget = options.cacheBudget
            }
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
        if let web = server.web { FileHandle.standardOutput.write(Data("web: \(web.signInURL)\n".utf8)) }
        FileHandle.standardOutput.write(Data("listening on \(endpoint?.description ?? "nothing")\n".utf8))
        stopped.wait()
        server.stop()
    }
}
