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
    /// Moves an item to `index` of `gallery` (its own gallery when nil).
    case move(item: ItemReference, to: String?, at: Int)
    /// Deletes items, all or none.
    case delete([ItemReference])
    /// Changes an item's title or aspect ratio.
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
    /// The listing of one gallery (or all), then every change, until the client closes.
    case watch(gallery: String?)
    /// Drops items into a gallery.
    case drag(DragRequest)
    /// Cancels transfers (by their placeholders' IDs).
    case cancel([OpID])

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
        case .watch: .watch
        case .drag: .drag
        case .cancel: .cancel
        }
    }

    /// Whether the command only reads the node's state, quickly and without touching files: such
    /// commands are never refused for want of a command slot, so that commands that wait (a large
    /// `add`, a slow disk) cannot lock `list` and `status` out.
    package var onlyReads: Bool {
        switch self {
        case .galleries, .list, .peers, .status, .export: true
        case .newGallery, .add, .move, .delete, .update, .connect, .disconnect, .forget, .watch, .drag, .cancel: false
        }
    }

    /// Why the command carries a value that no op may hold (`FieldLimits`), or nil. The command
    /// line checks it before it contacts the node (a usage error); the node checks it again before
    /// the command changes anything.
    package var boundsProblem: String? {
        switch self {
        case .newGallery(let name): FieldLimits.problem(withGalleryName: name)
        case .move(_, let gallery?, _): FieldLimits.problem(withGalleryName: gallery)
        case .add(let request): request.boundsProblem
        case .update(let request): request.boundsProblem
        case .drag(let request): request.boundsProblem
        case .galleries, .list, .move, .delete, .export, .peers, .status, .connect, .disconnect, .forget, .watch, .cancel: nil
        }
    }
}
