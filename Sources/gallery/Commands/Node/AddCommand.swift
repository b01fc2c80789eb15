import Foundation
import GalleryIO
import GalleryNode
import GalleryWire

/// `add FILE|URL... [--to G] [--at I] [--title T] [--aspect R]`: adds images, in the order given.
struct AddCommand: NodeSubcommand {
    static let name = ControlCommandName.add
    static let usage = "usage: gallery -C DIR add FILE|URL... [--to GALLERY] [--at INDEX] [--title T] [--aspect R]"
    let request: AddRequest

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        let gallery = try arguments.option("--to")
        let index = try arguments.intOption("--at")
        let title = try arguments.option("--title")
        let aspect = try arguments.doubleOption("--aspect")
        // Files are sent as absolute paths: the node does not share this process's directory.
        let sources = try arguments.positionals("FILE or URL").map { text -> AddSource in
            switch AddSource(text) {
            case .file(let path): .file(URL(fileURLWithPath: path).path)
            case let url: url
            }
        }
        request = AddRequest(sources: sources, gallery: gallery, index: index, title: title, aspect: aspect)
    }

    var command: ControlCommand { .add(request) }

    /// A FIFO, device or directory is refused here at once (the node checks again).
    func run(on node: NodeConnection) throws(CommandFailure) {
        for case .file(let path) in request.sources {
            do {
                try RegularFile.check(path)
            } catch {
                throw .failed(error.localizedDescription)
            }
        }
        print(render(try node.send(command)), terminator: "")
    }

    func render(_ reply: ControlReply) -> String {
        (reply.ids ?? []).map { "\($0)\n" }.joined()
    }
}
