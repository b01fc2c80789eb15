import GalleryModel

/// A command to a running node, with its typed arguments: what a `control_request` carries
/// (protocol.md section 15), whichever adapter (the command line, later a web page) made it.
///
/// JSON: `{"command": NAME, "arguments": {...}}`, `arguments` absent for commands without any;
/// `ControlCommand+Coding.swift` spells out every case.
package enum ControlCommand: Hashable, Sendable {
    /// The galleries' names.
    case galleries
    /// Creates a gallery of this name.
    case newGallery(String)
    /// The items of one gallery, or of all when nil.
    case list(gallery: String?)
    /// Adds images.
    case add(AddRequest)
    /// Moves items, all or none, as one run in the order given whose first item lands at `index`
    /// of `gallery` as counted without them (the items' own gallery when nil).
    case move(items: [ItemReference], to: String?, at: Int)
    /// Moves items to the Trash, all or none (docs/design.md, "Trash").
    case delete([ItemReference])
    /// Changes the title or aspect ratio of items, all or none.
    case update(UpdateRequest)
    /// Names the bytes of an item (hash and size), which the command line reads from DIR itself.
    case export(item: ItemReference)
    /// The connected peers.
    case peers
    /// The node's state.
    case status
    /// Connects to a peer and stays connected.
    case connect(host: String, port: UInt16)
    /// Drops the connections to the peer of this name.
    case disconnect(peer: String)
    /// Removes a peer (by name) or an address from the address book and stops dialing it.
    case forget(peer: String)
    /// Makes a single-use invitation valid this many seconds (protocol.md, "Membership").
    case invite(seconds: UInt64)
    /// Lists the space's members.
    case members
    /// Revokes a member, by node ID or name.
    case revoke(node: String)
    /// The listing of one gallery (or all), then every change, until the client closes.
    case watch(gallery: String?)
    /// Drops items into a gallery.
    case drag(DragRequest)
    /// Cancels transfers (by their placeholders' IDs).
    case cancel([OpID])
    /// The items in the Trash, the most recently trashed first.
    case listTrash
    /// Takes items out of the Trash, back where they were, all or none.
    case restore([ItemReference])
    /// Deletes items of the Trash for good (all of it when empty), all or none.
    case emptyTrash([ItemReference])
    /// Renames a gallery.
    case renameGallery(String, to: String)
    /// Deletes a gallery: its items go to the Trash.
    case deleteGallery(String)
    /// Takes back this node's last command-line action (`redo`: the last undo).
    case undo, redo

    /// Moves one item to `index` of `gallery` (its own gallery when nil).
    package static func move(item: ItemReference, to gallery: String?, at index: Int) -> ControlCommand {
        .move(items: [item], to: gallery, at: index)
    }

    /// The command's name.
    package var name: ControlCommandName {
        switch self {
        case .galleries: .galleries
        case .newGallery: .newGallery
        case .list: .list
        case .add: .add
        case .move: .move
        case .delete: .delete
        case .update: .update
        case .export: .export
        case .peers: .peers
        case .status: .status
        case .connect: .connect
        case .disconnect: .disconnect
        case .forget: .forget
        case .invite: .invite
        case .members: .members
        case .revoke: .revoke
        case .watch: .watch
        case .drag: .drag
        case .cancel: .cancel
        case .listTrash: .listTrash
        case .restore: .restore
        case .emptyTrash: .emptyTrash
        case .renameGallery: .renameGallery
        case .deleteGallery: .deleteGallery
        case .undo: .undo
        case .redo: .redo
        }
    }

    /// Whether the command only reads the node's state, quickly and without touching files: such
    /// commands are never refused for want of a command slot, so that commands that wait (a large
    /// `add`, a slow disk) cannot lock `list` and `status` out.
    package var onlyReads: Bool {
        switch self {
        case .galleries, .list, .peers, .status, .export, .listTrash, .members: true
        case .invite, .revoke: false
        case .newGallery, .add, .move, .delete, .update, .connect, .disconnect, .forget, .watch, .drag, .cancel,
             .restore, .emptyTrash, .renameGallery, .deleteGallery, .undo, .redo: false
        }
    }

    /// Why the command names a gallery that no op may name, or gives one a name a person may not
    /// give (`FieldLimits`), or nil: the one rule for gallery names, of the command line and the web.
    package var galleryNameProblem: String? {
        switch self {
        case .newGallery(let name): FieldLimits.problem(withNewGalleryName: name)
        case .deleteGallery(let name): FieldLimits.problem(withGalleryName: name)
        case .renameGallery(let name, let newName):
            FieldLimits.problem(withGalleryName: name) ?? FieldLimits.problem(withNewGalleryName: newName)
        case .move(_, let gallery?, _): FieldLimits.problem(withGalleryName: gallery)
        default: nil
        }
    }

    /// Why the command carries a value that no op may hold (`FieldLimits`), or nil. The command
    /// line checks it before it contacts the node (a usage error); the node checks it again before
    /// the command changes anything.
    package var boundsProblem: String? {
        if let problem = galleryNameProblem { return problem }
        return switch self {
        case .newGallery, .deleteGallery, .renameGallery: nil
        case .restore(let items), .emptyTrash(let items): Self.problem(withBatch: items)
        case .move(let items, _, _), .delete(let items): Self.problem(withBatch: items)
        case .add(let request): request.boundsProblem
        case .update(let request): Self.problem(withBatch: request.items) ?? request.boundsProblem
        case .drag(let request): request.boundsProblem
        case .invite(let seconds):
            Self.invitationSeconds.contains(seconds) ? nil
                : "an invitation lasts \(Self.invitationSeconds.lowerBound) to \(Self.invitationSeconds.upperBound) seconds (\(seconds) given)"
        case .revoke(let node):
            // A node's name is its own gallery's name: the same bytes.
            FieldLimits.galleryNameBytes.contains(node.utf8.count) ? nil
                : "NODE is a node ID or a node's name of 1 to \(FieldLimits.galleryNameBytes.upperBound) bytes (\(node.utf8.count) given)"
        case .galleries, .list, .export, .peers, .status, .connect, .disconnect, .forget, .watch, .cancel,
             .listTrash, .undo, .redo, .members: nil
        }
    }

    /// How long an invitation may last, in seconds (`invite --expires`, `POST /api/invite`): a week at most.
    package static let invitationSeconds: ClosedRange<UInt64> = 1...604_800
    /// How long an invitation lasts when the command does not say: 10 minutes.
    package static let defaultInvitationSeconds: UInt64 = 600

    /// The most items one `move`, `delete` or `update` names: as many as the web API's batches
    /// take, so that one batch is one durable batch of ops of a bounded size.
    package static let maximumBatchItems = 10_000

    /// Why a batch of items is too large, or nil (an empty one is the node's to refuse: it names
    /// the command).
    private static func problem(withBatch items: [ItemReference]) -> String? {
        items.count > maximumBatchItems ? "at most \(maximumBatchItems) items in one command (\(items.count) given)" : nil
    }
}
