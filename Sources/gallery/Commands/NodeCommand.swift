import Foundation

/// `gallery -C DIR COMMAND ...`: a command carried out by the node serving DIR.
struct NodeCommand {
    let directory: URL
    let arguments: [String]

    /// Every command of `gallery -C DIR`, in the order of the overview.
    static var subcommands: [any NodeSubcommand.Type] {
        [
            GalleriesCommand.self, NewGalleryCommand.self, ListCommand.self, AddCommand.self, ExportCommand.self,
            MoveCommand.self, DeleteCommand.self, UpdateCommand.self, PeersCommand.self, ConnectCommand.self,
            DisconnectCommand.self, ForgetCommand.self, DragCommand.self, CancelCommand.self, StatusCommand.self, WatchCommand.self,
            RestoreCommand.self, EmptyTrashCommand.self, RenameGalleryCommand.self, DeleteGalleryCommand.self,
            UndoCommand.self, RedoCommand.self, InviteCommand.self, MembersCommand.self, RevokeCommand.self,
        ]
    }

    /// The command named `word`, if any.
    static func subcommand(named word: String) -> (any NodeSubcommand.Type)? {
        subcommands.first { $0.name.rawValue == word || $0.aliases.contains(word) }
    }

    /// Parses the command, checks its values against `FieldLimits` before the node is contacted (a
    /// usage error), and runs it.
    func run() throws(CommandFailure) {
        guard let word = arguments.first else { throw .usage("missing command after -C DIR", Usage.overview) }
        if word == OpenCommand.name {
            // Reads DIR's files only: no control request.
            var list = ArgumentList(Array(arguments.dropFirst()), command: word, usage: Usage.open)
            try OpenCommand(parsing: &list, directory: directory).run()
            return
        }
        guard let type = Self.subcommand(named: word) else { throw .usage("unknown command \"\(word)\"", Usage.overview) }
        var list = ArgumentList(Array(arguments.dropFirst()), command: word, usage: type.usage)
        let subcommand = try type.init(parsing: &list)
        try list.expectEnd()
        if let problem = subcommand.command.boundsProblem { throw .usage(problem, type.usage) }
        try subcommand.run(on: NodeConnection(directory: directory))
    }
}
