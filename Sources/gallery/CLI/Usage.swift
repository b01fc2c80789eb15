/// The help texts of `gallery` and its commands.
enum Usage {
    static let overview = """
        usage: gallery <command> [arguments]

        commands:
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

    static func of(_ command: String) -> String? {
        switch command {
        case "simulate": simulate
        default: nil
        }
    }
}
