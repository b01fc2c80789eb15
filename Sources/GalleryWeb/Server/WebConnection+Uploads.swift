import Foundation
import GalleryControl
import GalleryHTTP
import GalleryWire
import Synchronization

/// The receiving end of one upload (`PUT /api/uploads/ID`), used on the connection's lane only:
/// the receiver once made, and whether the upload is settled (answered, refused or abandoned).
/// The lane's jobs run one at a time, so the lock is never contended: it only lets the compiler
/// check the type.
final class WebUploadSlot: Sendable {
    private let state = Mutex<(receiver: UploadReceiver?, settled: Bool)>((nil, false))

    /// The receiver once made.
    var receiver: UploadReceiver? {
        get { state.withLock { $0.receiver } }
        set { state.withLock { $0.receiver = newValue } }
    }

    /// Whether the upload is answered, refused or abandoned.
    var settled: Bool {
        get { state.withLock { $0.settled } }
        set { state.withLock { $0.settled = newValue } }
    }
}

/// Upload bodies: the loop parses them and hands each piece to the lane, which writes it to the
/// upload's temporary file; reading pauses while more than `Limits.uploadQueued` bytes wait for
/// the disk, so a fast client cannot fill memory faster than the disk takes it.
extension WebConnection {
    /// Starts an upload whose head passed the checks: its receiver is made on the lane (a file is
    /// created, the placeholder may be deleted); a refusal there is answered and closes the
    /// connection, its body unread.
    func beginUpload(_ head: HTTPRequestHead, upload: String) {
        let slot = WebUploadSlot()
        state = .uploading(head, slot)
        let api = api
        lane.submit { [self] in
            do {
                slot.receiver = try api.uploads.receiver(for: upload, contentLength: head.contentLength)
                if head.expectsContinue { channel.execute { self.continueUpload() } }
            } catch {
                slot.settled = true
                let bytes = WebResponse.refusal(WebRefusal.from(error)).serialized(for: head, keepAlive: false)
                channel.execute { self.uploadRefused(bytes) }
            }
        }
    }

    /// The receiver is ready: a client that waits for `100 Continue` may send the body.
    private func continueUpload() {
        guard case .uploading = state else { return }
        outboxWrite(HTTPResponseHead.continueBytes)
    }

    /// The upload was refused on the lane: the answer, then the connection closes.
    private func uploadRefused(_ bytes: [UInt8]) {
        switch state {
        case .uploading, .answering:
            state = .answering
            write(bytes, keepAlive: false)
        default:
            break
        }
    }

    /// Hands one piece of the body to the lane.
    func queueUpload(_ chunk: [UInt8], into slot: WebUploadSlot) {
        uploadQueued += chunk.count
        let api = api
        lane.submit { [self] in
            if let receiver = slot.receiver, !slot.settled {
                do {
                    try receiver.append(chunk)
                    if receiver.progressDue() { api.publishProgress(of: receiver) }
                } catch {
                    slot.settled = true
                    api.uploads.fail(receiver.upload, reason: "cannot store the bytes: \(error.localizedDescription)")
                    receiver.discard()
                    let bytes = WebResponse.refusal(WebRefusal(500, "storage", error.localizedDescription)).serialized(for: nil, keepAlive: false)
                    channel.execute { self.uploadRefused(bytes) }
                }
            }
            channel.execute { self.uploadWritten(chunk.count) }
        }
    }

    /// `count` upload bytes reached the disk: reading may resume.
    private func uploadWritten(_ count: Int) {
        uploadQueued -= count
        if case .closed = state { return }
        updateReading()
    }

    /// The whole body is in: the blob is stored and the placeholder committed, on the lane.
    func finishUpload(_ head: HTTPRequestHead, slot: WebUploadSlot) {
        let api = api
        lane.submit { [self] in
            guard let receiver = slot.receiver, !slot.settled else { return }  // Refused: answered already.
            slot.settled = true
            let response = api.finishUpload(receiver)
            let reply = WebReply.response(response.serialized(for: head, keepAlive: head.keepAlive), keepAlive: head.keepAlive)
            channel.execute { self.answered(reply) }
        }
    }

    /// The connection closed mid-body: the placeholder is deleted with the reason.
    func abandonUpload(_ slot: WebUploadSlot) {
        let api = api
        lane.submit {
            guard let receiver = slot.receiver, !slot.settled else { return }
            slot.settled = true
            api.uploads.fail(receiver.upload, reason: "the upload was interrupted")
            receiver.discard()
        }
    }
}

extension WebAPI {
    /// The answer to an upload whose bytes are all in: the committed item and its hash, or the refusal.
    func finishUpload(_ receiver: UploadReceiver) -> WebResponse {
        do {
            let (item, hash) = try uploads.finish(receiver)
            let listing = node.read { replica in replica.item(item) }
            let json = listing.map { WebItems.json(ControlCommands.listing($0, transfers: node.transfers)) }
            return .json(["item": json ?? .null, "hash": .string(hash), "lastEventId": advance()])
        } catch {
            return .refusal(WebRefusal.from(error))
        }
    }

    /// A `progress` event for an upload's placeholder (bytes received of the announced size).
    func publishProgress(of receiver: UploadReceiver) {
        let event = node.read { replica -> WatchEvent? in
            guard let location = replica.location(of: receiver.item) else { return nil }
            return WatchEvent(event: .progress, id: receiver.item.description, gallery: location.gallery, index: location.index,
                              title: replica.item(receiver.item)?.title, state: "placeholder",
                              done: receiver.received, total: receiver.file.size)
        }
        if let event { feed.publishProgress([event]) }
    }
}
