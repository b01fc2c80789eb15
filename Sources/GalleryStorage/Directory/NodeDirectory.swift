import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import GalleryModel

/// The files of a node's directory: `secret`, `node.key`, `replica`, `oplog`, `oplog.mirror`, `ops.compact`, `snapshot`,
/// `blobs/`, `node.json`, `lock`, `control.sock`.
package struct NodeDirectory {
    /// The directory.
    let url: URL

    /// The files of the directory `url`.
    package init(url: URL) {
        self.url = url
    }

    var secret: URL { url.appendingPathComponent("secret") }
    /// The node's static key (`NodeDirectory+NodeKey`).
    package var nodeKeyFile: URL { url.appendingPathComponent("node.key") }
    package var replicaFile: URL { url.appendingPathComponent("replica") }
    package var opLog: URL { url.appendingPathComponent("oplog") }
    /// The record log's copy (`MirroredOpLog`).
    package var opLogMirror: URL { url.appendingPathComponent("oplog.mirror") }
    var compactLog: URL { url.appendingPathComponent("ops.compact") }
    var snapshot: URL { url.appendingPathComponent("snapshot") }
    package var info: URL { url.appendingPathComponent("node.json") }
    var lockFile: URL { url.appendingPathComponent("lock") }
    /// The local control socket (protocol.md, section 15).
    package var controlSocket: URL { url.appendingPathComponent("control.sock") }
    /// The address book: every peer ever connected and where it listens (`ChecksummedFile`).
    package var addressBook: URL { url.appendingPathComponent("peers") }

    /// Takes the directory's lock, held until the process exits or `unlock` closes the descriptor,
    /// and tightens the modes of everything in it (`tightenModes`): whoever serves a directory
    /// takes its lock first, so no file of it stays readable by others past this.
    package func lock() throws(ServerError) -> Int32 {
        let descriptor = Glibc_or_Darwin.open(lockFile.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io("cannot open \(lockFile.path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .alreadyRunning(url.path)
        }
        do throws(ServerError) {
            try tightenModes()
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// The space's secret: copied from `source` when given (joining a space), else the one kept
    /// here, else 32 new random bytes. The file is written with mode 0600.
    package func secret(copiedFrom source: URL?) throws(ServerError) -> [UInt8] {
        if let source {
            guard let bytes = FileManager.default.contents(atPath: source.path), !bytes.isEmpty else {
                throw .secret("cannot read \(source.path), or it is empty")
            }
            try writePrivately(Array(bytes), to: secret)
            return Array(bytes)
        }
        if let bytes = FileManager.default.contents(atPath: secret.path) {
            guard !bytes.isEmpty else { throw .secret("\(secret.path) is empty") }
            return Array(bytes)
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try writePrivately(bytes, to: secret)
        return bytes
    }

    /// The replica ID kept here when the op log survived; otherwise a new random one, recorded,
    /// because a replica without its log must never reuse its op IDs.
    package func replicaID(logExisted: Bool) throws(ServerError) -> ReplicaID {
        if logExisted, let data = FileManager.default.contents(atPath: replicaFile.path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count == 16, let id = ReplicaID(text) else { throw .corruptReplicaFile(replicaFile.path) }
            return id
        }
        var generator = SystemRandomNumberGenerator()
        let id = ReplicaID(UInt64.random(in: 1...UInt64.max, using: &generator))
        try writeAtomically(Array((id.description + "\n").utf8), to: replicaFile)
        return id
    }

    /// Draws a new replica ID and records it durably (the file synced, renamed, the directory
    /// synced): a new incarnation for a node that lost records, so that it never reuses an op ID.
    package func renewReplicaID() throws(ServerError) -> ReplicaID {
        var generator = SystemRandomNumberGenerator()
        let id = ReplicaID(UInt64.random(in: 1...UInt64.max, using: &generator))
        try writeAtomically(Array((id.description + "\n").utf8), to: replicaFile)
        let directory = Glibc_or_Darwin.open(url.path, O_RDONLY | O_CLOEXEC, 0)
        guard directory >= 0 else { throw .io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw .io("cannot sync \(url.path): \(String(cString: strerror(errno)))") }
        return id
    }

    /// Writes a file readable by its owner only.
    func writePrivately(_ bytes: [UInt8], to file: URL) throws(ServerError) {
        let temporary = file.appendingPathExtension("tmp")
        unlink(temporary.path)
        let descriptor = Glibc_or_Darwin.open(temporary.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io("cannot create \(temporary.path): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0, rename(temporary.path, file.path) == 0 else {
            throw .io("cannot write \(file.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a file through a temporary file and a rename, so that it is whole or absent.
    package func writeAtomically(_ bytes: [UInt8], to file: URL) throws(ServerError) {
        try writePrivately(bytes, to: file)
    }
}
