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
        let root = URL(fileURLWithPath: folder)
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]) else { return [] }
        var files: [String] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            files.append(url.standardizedFileURL.path)
        }
        return files.sorted()
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
        var temporaries: [(temporary: String, hash: String)]
        var bytes: Int
    }

    /// Hashes and stores every file in `store` on `workers` threads, reporting to `progress`;
    /// returns the sources of the command. A named file that is not an image (or cannot be read)
    /// fails the whole import, after removing what was written.
    ///
    /// Without `aspectGiven`, a header whose aspect ratio is outside `FieldLimits` refuses the file
    /// before its bytes are stored (as the node would).
    func store(in store: BlobStore, workers: Int, aspectGiven: Bool, progress: ImportProgress?) throws(CommandFailure) -> Stored {
        let files = sources.enumerated().compactMap { index, source -> (Int, String, Bool)? in
            if case .file(let path, let explicit) = source { (index, path, explicit) } else { nil }
        }
        let results = Mutex<[Int: Result<(temporary: String, hash: String, size: Int), Skipped>]>([:])
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
                while !failed.load(ordering: .relaxed) {
                    let position = next.add(1, ordering: .relaxed).oldValue
                    guard position < files.count else { return }
                    let (index, path, explicit) = files[position]
                    let outcome = Self.storeOne(path, in: store, aspectGiven: aspectGiven)
                    if case .failure(let skipped) = outcome, explicit || skipped.fatal { failed.store(true, ordering: .relaxed) }
                    results.withLock { $0[index] = outcome }
                    progress?.stored(bytes: (try? outcome.get().size) ?? 0)
                }
            }
        }
        done.wait()
        progress?.end()
        var stored = Stored(sources: Array(repeating: nil, count: sources.count), skipped: [], temporaries: [], bytes: 0)
        var refusal: String?
        let all = results.withLock { $0 }
        for (index, source) in sources.enumerated() {
            switch source {
            case .url(let url):
                stored.sources[index] = .url(url)
            case .file(let path, let explicit):
                switch all[index] {
                case .success(let file)?:
                    stored.sources[index] = .blob(hash: file.hash, name: URL(fileURLWithPath: path).lastPathComponent)
                    stored.temporaries.append((file.temporary, file.hash))
                    stored.bytes += file.size
                case .failure(let skipped)?:
                    if (explicit || skipped.fatal) && refusal == nil { refusal = "\(skipped.path): \(skipped.reason)" }
                    stored.skipped.append(skipped)
                case nil:
                    break  // Not reached: the import stopped at a refused named file.
                }
            }
        }
        if let refusal {
            for (temporary, _) in stored.temporaries { try? FileManager.default.removeItem(atPath: temporary) }
            throw .failed(TerminalText.escaped(refusal))
        }
        return stored
    }

    /// Checks one file's header, then copies it into the store unsynced.
    private static func storeOne(
        _ path: String, in store: BlobStore, aspectGiven: Bool
    ) -> Result<(temporary: String, hash: String, size: Int), Skipped> {
        do {
            var head = try RegularFile.prefix(of: path, maximumLength: 64 << 10)
            if ImageHeader(head) == nil && head.count == 64 << 10 {
                head = try RegularFile.prefix(of: path, maximumLength: AddImage.headerLength)
            }
            guard let header = ImageHeader(head) else { return .failure(Skipped(path: path, reason: "not a PNG, JPEG or GIF image")) }
            if !aspectGiven, let problem = FieldLimits.problem(with: .number(header.aspectRatio), for: .aspectRatio) {
                return .failure(Skipped(path: path, reason: problem))
            }
        } catch {
            return .failure(Skipped(path: path, reason: error.localizedDescription))
        }
        do {
            return .success(try store.store(contentsOf: URL(fileURLWithPath: path), sync: false))
        } catch {
            return .failure(Skipped(path: path, reason: error.localizedDescription, fatal: true))
        }
    }
}
