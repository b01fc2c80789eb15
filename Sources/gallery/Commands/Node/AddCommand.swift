import Foundation
import GalleryIO
import GalleryStorage
import GalleryWire

/// `add FILE|FOLDER|PATTERN|URL... [--to G] [--at I] [--title T] [--aspect R] [--in-place] [--json]`:
/// adds images, in the order given, as one run.
///
/// Files are hashed and stored here, in parallel (`ImageImport`), with progress on stderr; the node
/// then gets one command naming the stored blobs. A file named on the command line that is not an
/// image fails the whole add (nothing is added); files of a folder or a pattern that are not images
/// are skipped and named. `--json` prints `{"ids": [...], "skipped": [{"path", "reason"}]}` and no
/// progress. `--in-place` copies nothing: each file is hashed where it is and the node records its
/// path, size, modification time and hash (`DIR/in-place`) and serves its bytes from there, checked
/// against the hash at every read (docs/design.md, "Files kept in place").
struct AddCommand: NodeSubcommand {
    static let name = ControlCommandName.add
    static let usage = "usage: gallery -C DIR add FILE|FOLDER|PATTERN|URL... [--to GALLERY] [--at INDEX] [--title T] [--aspect R] [--in-place] [--json]"
    /// The request as the arguments give it (files by path): checked against the field bounds
    /// before the node is contacted.
    let request: AddRequest
    let json: Bool
    /// Whether files are kept where they are instead of copied into the blob store.
    let inPlace: Bool
    private let arguments: [String]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        let gallery = try arguments.option("--to")
        let index = try arguments.intOption("--at")
        let title = try arguments.option("--title")
        let aspect = try arguments.doubleOption("--aspect")
        json = arguments.flag("--json")
        inPlace = arguments.flag("--in-place")
        self.arguments = try arguments.positionals("FILE or URL")
        // Files are sent as absolute paths: the node does not share this process's directory.
        let sources = self.arguments.map { text -> AddSource in
            switch AddSource(text) {
            case .file(let path): .file(URL(fileURLWithPath: path).path)
            case let url: url
            }
        }
        request = AddRequest(sources: sources, gallery: gallery, index: index, title: title, aspect: aspect)
    }

    var command: ControlCommand { .add(request) }

    func run(on node: NodeConnection) throws(CommandFailure) {
        let stages = ImportStages()
        defer { stages.report() }
        let sources = try ImageImport(arguments: arguments)
        stages.end("expand")
        guard sources.hasFiles else {
            print(output(try node.send(command), skipped: []), terminator: "")
            return
        }
        let workers = ImageImport.workers
        if inPlace {
            let hashed = try sources.fingerprint(
                workers: workers, aspectGiven: request.aspect != nil, progress: json ? nil : ImportProgress(verb: "hashed"))
            reportSkipped(hashed)
            try send(hashed, to: node)
            return
        }
        let importer: BlobImporter
        do {
            importer = BlobImporter(store: try BlobStore(directory: node.directory, removingTemporaryFiles: false))
        } catch {
            throw .failed(TerminalText.escaped(error.localizedDescription))
        }
        let stored = try sources.store(
            with: importer, workers: workers, aspectGiven: request.aspect != nil, progress: json ? nil : ImportProgress())
        stages.end("store")
        reportSkipped(stored)
        guard stored.sources.contains(where: { $0 != nil }) else { throw .failed("nothing to add: no PNG, JPEG or GIF image among the files given") }
        do {
            // The blobs are durable and in place before the command that names them.
            try importer.install(stored.files)
        } catch {
            importer.discard(stored.files)
            throw .failed(TerminalText.escaped(error.localizedDescription))
        }
        stages.end("install")
        try send(stored, to: node)
        stages.end("node")
    }

    /// Names the files skipped, on stderr (not with `--json`: its output lists them).
    private func reportSkipped(_ stored: ImageImport.Stored) {
        guard !json else { return }
        for skipped in stored.skipped {
            FileHandle.standardError.write(Data("skipped \(TerminalText.escaped(skipped.path)): \(skipped.reason)\n".utf8))
        }
    }

    /// Sends the one command naming what was stored or hashed; prints the items made.
    private func send(_ stored: ImageImport.Stored, to node: NodeConnection) throws(CommandFailure) {
        let added = stored.sources.compactMap { $0 }
        guard !added.isEmpty else { throw .failed("nothing to add: no PNG, JPEG or GIF image among the files given") }
        var request = request
        request.sources = added
        print(output(try node.send(.add(request)), skipped: stored.skipped), terminator: "")
    }

    /// The item IDs, one per line, or the JSON object with `--json`.
    private func output(_ reply: ControlReply, skipped: [ImageImport.Skipped]) -> String {
        let ids = (reply.ids ?? []).map { "\($0)" }
        guard json else { return ids.map { "\($0)\n" }.joined() }
        return JSONOutput.line(AddOutput(ids: ids, skipped: skipped))
    }

    /// What `add --json` prints.
    private struct AddOutput: Encodable {
        let ids: [String]
        let skipped: [ImageImport.Skipped]
    }
}
