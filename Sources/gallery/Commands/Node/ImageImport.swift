import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryStorage
import GalleryWire
import Synchronization

/// The files of `gallery add`, hashed and stored by the command line before the one command: the
/// arguments expanded (folders walked, patterns matched), every file checked (a regular file with a
/// PNG, JPEG or GIF header), then hashed and copied into the node's blob store by four threads per
/// core (each file read once into an aligned buffer, hashed there and written from
/// it with direct I/O), made durable with one `syncfs`, and installed with one directory fsync
/// per fan-out directory. The node then gets one `add` naming the stored blobs, which it inserts as
/// one durable batch (`Replica.insertRun`).
///
/// Nothing is half added: until the command is acknowledged only blobs exist (content-addressed,
/// verified, and harmless unreferenced), and the items appear all at once or not at all.
struct ImageImport {
    /// One argument of `add`, expanded.
    enum Source {
        /// A URL, kept by reference.
        case url(String)
        /// A file: named on the command line (`explicit`: must be an image) or found in a folder
        /// or by a pattern (skipped, by name, when it is not an image).
        case file(path: String, explicit: Bool)
    }

    /// A file that was not stored, and why.
    struct Skipped: Encodable, Error {
        let path: String
        let reason: String
        /// Whether it stops the import whatever the file's origin (it could not be stored, not
        /// merely not an image).
        var fatal = false

        private enum CodingKeys: String, CodingKey {
            case path, reason
        }
    }

    /// The threads that read, hash and write files: four per core, so that a thread waiting on the
    /// disk leaves its core to another (`GALLERY_IMPORT_THREADS` sets another number, for
    /// measurements).
    static var workers: Int {
        if let text = ProcessInfo.processInfo.environment["GALLERY_IMPORT_THREADS"], let count = Int(text), (1...256).contains(count) {
            return count
        }
        return max(2, ProcessInfo.processInfo.activeProcessorCount * 4)
    }

    /// The sources in the order given, folders' files sorted by path, each file once.
    let sources: [Source]

    /// Expands the arguments; a missing path that is no pattern is a failure.
    init(arguments: [String]) throws(CommandFailure) {
        var sources: [Source] = []
        var seen: Set<String> = []
        func addFile(_ path: String, explicit: Bool) {
            if seen.insert(path).inserted { sources.append(.file(path: path, explicit: explicit)) }
        }
        for text in arguments {
            if case .url(let url) = AddSource(text) {
                sources.append(.url(url))
                continue
            }
            let path = URL(fileURLWithPath: text).standardizedFileURL.path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                if isDirectory.boolValue {
                    for file in Self.files(under: path) { addFile(file, explicit: false) }
                } else {
                    addFile(path, explicit: true)
                }
            } else if text.contains(where: { "*?[".contains($0) }) {
                for match in Self.glob(text) { addFile(URL(fileURLWithPath: match).standardizedFileURL.path, explicit: false) }
            } else {
                // Checked, with the system's reason, when it is opened.
                addFile(path, explicit: true)
            }
        }
        self.sources = sources
    }

    /// Whether any source is a file (else the command goes to the node as it is).
    var hasFiles: Bool {
        sources.contains { if case .file = $0 { true } else { false } }
    }

    /// The regular files under a folder, hidden names skipped, sorted by path.
    private static func files(under folder: String) -> [String] {
        FolderWalk.regularFiles(under: folder)
    }

    /// The paths matching a shell pattern, sorted (none when nothing matches).
    private static func glob(_ pattern: String) -> [String] {
        var matches = glob_t()
        defer { globfree(&matches) }
        guard Glibc.glob(pattern, 0, nil, &matches) == 0 else { return [] }
        return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    // MARK: Storing

    /// What storing the files gave: each file's source for the command (nil: skipped), the files
    /// skipped and the temporary files to install.
    struct Stored {
        var sources: [AddSource?]
        var skipped: [Skipped]
        var files: [BlobImporter.Stored]
        var bytes: Int
    }

    /// Hashes and stores every file through `importer` on `workers` threads, reporting to
    /// `progress`; returns the sources of the command. A named file that is not an image (or
    /// cannot be read) fails the whole import, after removing what was written.
    ///
    /// Without `aspectGiven`, a header whose aspect ratio is outside `FieldLimits` refuses the file
    /// before its bytes are stored (as the node would).
    func store(with importer: BlobImporter, workers: Int, aspectGiven: Bool, progress: ImportProgress?) throws(CommandFailure) -> Stored {
        let inspect = Self.inspection(aspectGiven: aspectGiven)
        let results = run(workers: workers, progress: progress) { path, buffer -> Result<BlobImporter.Stored, Skipped> in
            do {
                switch try importer.store(path, buffer: buffer, inspect: inspect) {
                case .stored(let file): return .success(file)
                case .skipped(let reason): return .failure(Skipped(path: path, reason: reason))
                }
            } catch {
                return .failure(Skipped(path: path, reason: error.localizedDescription, fatal: true))
            }
        } size: { $0.size }
        return try collect(results) { file, path in
            (.blob(hash: file.hash, name: Self.lastComponent(of: path)), file, file.size)
        } discard: { importer.discard($0) }
    }

    /// Hashes every file where it is (`--in-place`: nothing is copied) on `workers` threads;
    /// returns the sources of the command, each naming its file, size, modification time and hash.
    func fingerprint(workers: Int, aspectGiven: Bool, progress: ImportProgress?) throws(CommandFailure) -> Stored {
        let inspect = Self.inspection(aspectGiven: aspectGiven)
        let results = run(workers: workers, progress: progress) { path, buffer -> Result<BlobImporter.Fingerprint, Skipped> in
            switch BlobImporter.fingerprint(path, buffer: buffer, inspect: inspect) {
            case .hashed(let fingerprint): .success(fingerprint)
            case .skipped(let reason): .failure(Skipped(path: path, reason: reason))
            }
        } size: { $0.size }
        return try collect(results) { file, path in
            (.inPlace(path: path, hash: file.hash, size: file.size, modified: file.modified), nil, file.size)
        } discard: { _ in }
    }

    /// Why a file's first bytes are refused (not an image, or an aspect ratio out of bounds), or nil.
    private static func inspection(aspectGiven: Bool) -> @Sendable (UnsafeRawBufferPointer) -> String? {
        { head in
            guard let header = ImageImport.header(of: head) else { return "not a PNG, JPEG or GIF image" }
            if !aspectGiven, let problem = FieldLimits.problem(with: .number(header.aspectRatio), for: .aspectRatio) {
                return problem
            }
            return nil
        }
    }

    /// Runs `work` on every file on `workers` threads of their own, each with its own buffer; the
    /// results in the order of the files (nil: not reached, the import stopped at a refused named
    /// file).
    private func run<Value: Sendable>(
        workers: Int, progress: ImportProgress?,
        _ work: @escaping @Sendable (String, BlobImporter.Buffer) -> Result<Value, Skipped>, size: @escaping @Sendable (Value) -> Int
    ) -> [Result<Value, Skipped>?] {
        let files = self.files
        // One slot per file, each written by the worker that took it; a lock per file is nothing
        // beside reading and hashing the file.
        let slots = Mutex<[Result<Value, Skipped>?]>(Array(repeating: nil, count: files.count))
        let next = Atomic<Int>(0)
        let failed = Atomic<Bool>(false)
        progress?.begin(files: files.count)
        // Threads of their own, not `concurrentPerform`: that runs at most one iteration per core,
        // so a worker blocked reading or writing would leave its core idle instead of hashing.
        let done = DispatchGroup()
        for _ in 0..<max(1, min(workers, files.count)) {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let buffer = BlobImporter.Buffer()
                while !failed.load(ordering: .relaxed) {
                    let position = next.add(1, ordering: .relaxed).oldValue
                    guard position < files.count else { return }
                    let (path, explicit) = files[position]
                    let outcome = work(path, buffer)
                    if case .failure(let skipped) = outcome, explicit || skipped.fatal { failed.store(true, ordering: .relaxed) }
                    slots.withLock { $0[position] = outcome }
                    progress?.stored(bytes: (try? outcome.get()).map(size) ?? 0)
                }
            }
        }
        done.wait()
        progress?.end()
        return slots.withLock { $0 }
    }

    /// The files among the sources, in order: (path, named on the command line).
    private var files: [(String, Bool)] {
        sources.compactMap { source in
            if case .file(let path, let explicit) = source { (path, explicit) } else { nil }
        }
    }

    /// The command's sources from the files' results (URLs as they are), the files skipped and
    /// those stored; a named file refused fails the whole import after `discard`ing what was stored.
    private func collect<Value>(
        _ results: [Result<Value, Skipped>?], source: (Value, String) -> (AddSource, BlobImporter.Stored?, Int),
        discard: ([BlobImporter.Stored]) -> Void
    ) throws(CommandFailure) -> Stored {
        var stored = Stored(sources: Array(repeating: nil, count: sources.count), skipped: [], files: [], bytes: 0)
        var refusal: String?
        var position = 0
        for (index, entry) in sources.enumerated() {
            switch entry {
            case .url(let url):
                stored.sources[index] = .url(url)
            case .file(let path, let explicit):
                defer { position += 1 }
                switch results[position] {
                case .success(let value)?:
                    let (made, file, size) = source(value, path)
                    stored.sources[index] = made
                    if let file { stored.files.append(file) }
                    stored.bytes += size
                case .failure(let skipped)?:
                    if (explicit || skipped.fatal) && refusal == nil { refusal = "\(skipped.path): \(skipped.reason)" }
                    stored.skipped.append(skipped)
                case nil:
                    break  // Not reached: the import stopped at a refused named file.
                }
            }
        }
        if let refusal {
            discard(stored.files)
            throw .failed(TerminalText.escaped(refusal))
        }
        return stored
    }

    /// The last component of a path (the item's title).
    static func lastComponent(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The image header in a file's first bytes: looked for in the first 64 KiB, then in all of
    /// them (a JPEG's SOF may follow large metadata).
    static func header(of head: UnsafeRawBufferPointer) -> ImageHeader? {
        let short = min(head.count, 64 << 10)
        if let header = ImageHeader(Array(head[0..<short])) { return header }
        guard head.count > short else { return nil }
        return ImageHeader(Array(head))
    }
}
