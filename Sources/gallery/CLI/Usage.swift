/// The help texts of `gallery` and its commands.
enum Usage {
    static let overview = """
        usage: gallery <command> [arguments]

        commands:
          serve DIR       run a node on DIR until SIGINT or SIGTERM
          simulate FILE   replay a schedule of ops on in-memory replicas and print the outcome as JSON
          help [COMMAND]  show this help, or a command's

        exit codes: 0 success, 1 the operation failed, 64 usage error
        """

    static let simulate = """
        usage: gallery simulate FILE

        Replays the schedule in FILE (or standard input for -) on named in-memory replicas and prints
        {"converged": BOOL, "replicas": {NAME: {GALLERY: [{"label", "title", "state"}, ...]}}}.
        The file format is described in README.md ("gallery simulate").
        """

    static let serve = """
        usage: gallery serve DIR [--name NAME] [--listen HOST:PORT] [--peer HOST:PORT]... [--secret-file FILE]

        Runs a node on DIR in the foreground until SIGINT or SIGTERM and prints "listening on HOST:PORT"
        when it is ready. DIR holds the op log (replayed at start; a torn tail is cut and reported), the
        space's secret (created, mode 0600, unless --secret-file gives one to join a space), the replica
        ID and node.json. The node creates the gallery named after it (--name, default: DIR's name).
          --listen HOST:PORT   where to accept peers (default 127.0.0.1:0, an ephemeral port)
          --peer HOST:PORT     a peer to stay connected to (repeatable)
        """

    static func of(_ command: String) -> String? {
        switch command {
        case "serve": serve
        case "simulate": simulate
        default: nil
        }
    }
}
