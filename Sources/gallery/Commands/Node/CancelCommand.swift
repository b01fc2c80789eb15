import Foundation
import GalleryModel
import GalleryWire

/// `cancel TRANSFER...`: cancels transfers; their placeholders are deleted.
struct CancelCommand: NodeSubcommand {
    static let name = ControlCommandName.cancel
    static let usage = "usage: gallery -C DIR cancel TRANSFER..."
    let transfers: [OpID]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        var transfers: [OpID] = []
        for text in try arguments.positionals("TRANSFER") {
            guard let id = OpID(text) else { throw arguments.failure("\"\(text)\" is not a transfer ID (COUNTER@REPLICA)") }
            transfers.append(id)
        }
        self.transfers = transfers
    }

    var command: ControlCommand { .cancel(transfers) }
}
