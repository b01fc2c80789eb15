import Foundation
import GalleryIO
import GalleryWire

/// `connect HOST:PORT`: connects to a peer and stays connected.
struct ConnectCommand: NodeSubcommand {
    static let name = ControlCommandName.connect
    static let usage = "usage: gallery -C DIR connect HOST:PORT"
    let endpoint: Endpoint

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        endpoint = try arguments.endpoint(try arguments.positional("HOST:PORT"), "")
    }

    var command: ControlCommand { .connect(host: endpoint.host, port: endpoint.port) }
}
