import Foundation
import GalleryControl
import GalleryIO
import GalleryStorage
import GalleryWire

/// `export ITEM FILE`: the node names the item's bytes (hash and size); this process reads them
/// from DIR's blob store (or the file kept in place), checks them, and writes FILE with the user's
/// own rights.
struct ExportCommand: NodeSubcommand {
    static let name = ControlCommandName.export
    static let usage = "usage: gallery -C DIR export ITEM FILE"
    let item: ItemReference
    let destination: URL

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        item = try arguments.item()
        destination = URL(fileURLWithPath: try arguments.positional("FILE"))
    }

    var command: ControlCommand { .export(item: item) }

    func run(on node: NodeConnection) throws(CommandFailure) {
        guard case .item(let listing) = try node.send(command), let hash = listing.hash else {
            throw .failed("the node named no bytes for \(TerminalText.escaped(item.description))")
        }
        do {
            // An item added with --in-place: its file, checked against the hash as it is copied.
            let kept = InPlaceFiles(file: node.directory.appendingPathComponent("in-place")).records(for: hash).map(\.path)
            try BlobExport.export(hash: hash, size: listing.bytes, from: node.directory, to: destination, keptAt: kept)
        } catch {
            throw .failed(TerminalText.escaped(error.localizedDescription))
        }
    }
}
