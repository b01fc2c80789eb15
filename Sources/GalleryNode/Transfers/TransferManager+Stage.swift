import Foundation
import GalleryModel
import GalleryWire

/// The stage of a download: a lane of the node's workers (`Download.stage`) hashes and stores the
/// chunks in the order they arrived, so that the connection's event loop only decodes them and the
/// peer, the network, the hash and the disk work at the same time.
///
/// The stage is where a decrypting step would sit too: it receives each chunk's bytes once and
/// hands them to the writer, which hashes them from that buffer and copies them once into its
/// direct-I/O buffer.
extension TransferManager {
    /// Hashes and stores one chunk of a download (on its stage), then: makes the partial file
    /// durable every `checkpointBytes`, asks for the next bytes if the fetch waited for the stage to
    /// catch up, and verifies and commits the blob at its last byte. A failure to store fails the
    /// download's placeholders (not while stopping: the partial file is kept for a resume).
    func store(_ data: [UInt8], hash: String, writer: any BlobSink) {
        var failure: String?
        do {
            try writer.append(data)
        } catch {
            failure = error.localizedDescription
        }
        var next: (Connection, FetchRequest)?
        var checkpoint = false
        var finished = false
        var failed: [OpID]?
        var taps: [any DemandTap] = []
        var offset = 0
        lock.withLock {
            guard var download = downloads[hash], download.writer === writer else { return }
            defer { downloads[hash] = download }
            if let failure {
                guard running else { return }
                download.phase = .finishing
                failed = download.placeholders
                node?.configuration.log("\(node?.configuration.name ?? "?"): cannot store \(hash.prefix(12)): \(failure)")
                return
            }
            offset = download.written
            taps = download.taps
            download.written += data.count
            storedSinceRelease += data.count
            if fetchesHeldBack {
                // Bytes left the backlog: the worker may start the downloads it held back.
                requestPass()
            }
            if download.written == download.size {
                finished = true
            } else if download.written - download.checkpointed >= Self.checkpointBytes {
                download.checkpointed = download.written
                checkpoint = true
            }
            if download.nextDeferred, download.done - download.written <= backlogBytes,
               case .fetching(let connection, _, let peer, let name) = download.phase {
                let request = makeRequest(for: &download, from: download.done)
                download.phase = .fetching(connection, request: request.id, peer: peer, name: name)
                download.noteActivity(on: connection, now: uptime)
                next = (connection, request)
            }
        }
        if let (connection, request) = next { connection.send(.fetch(request)) }
        // Readers streaming the blob get the bytes now, unverified; they complete on the answer.
        let refusing = taps.filter { !$0.received(data, at: offset) }
        if !refusing.isEmpty {
            lock.withLock { downloads[hash]?.taps.removeAll { tap in refusing.contains { $0 === tap } } }
        }
        if let failed, let failure {
            fail(failed, reason: "cannot store the bytes: \(failure)") { [self] in
                lock.withLock { dropUnwanted(hash, failure: .storage(failure)) }
            }
            return
        }
        if checkpoint { try? writer.checkpoint() }
        if finished {
            updateProgress(hash)
            finish(hash, writer)
        }
    }
}
