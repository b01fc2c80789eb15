import GalleryWire

/// The frames waiting to be written to one peer, by priority, bounded in bytes.
///
/// Control frames go before ops, ops before bulk bytes. Within a priority, frames keep their order,
/// so ops stay in causal order. Frames queued once `sealing` is on (after the handshake) go out in
/// sealed records; the frames queued before keep the handshake's plain layout (`popSegment` never
/// mixes the two).
package struct OutboundQueue {
    /// The most queued bytes; a push beyond it fails (the peer is too slow).
    let limit: Int
    private var frames: [[Frame]] = Array(repeating: [], count: FramePriority.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: FramePriority.allCases.count)
    /// Bytes queued, exempt frames included.
    private(set) var byteCount = 0
    /// Bytes of exempt frames still queued.
    private var exemptCount = 0
    /// Per frame queued: whether it is exempt (same layout as `frames`).
    private var exempt: [[Bool]] = Array(repeating: [], count: FramePriority.allCases.count)
    /// Per frame queued: whether it goes out sealed (same layout as `frames`).
    private var sealed: [[Bool]] = Array(repeating: [], count: FramePriority.allCases.count)
    /// Whether frames pushed from now on go out sealed: on once the handshake is over.
    var sealing = false

    package init(limit: Int) {
        self.limit = limit
    }

    package var isEmpty: Bool { byteCount == 0 && zip(frames, heads).allSatisfy { $0.count == $1 } }

    /// Queues a frame; false when the queued bytes that count would exceed the limit. Errors always
    /// fit; `exempt` frames (a catch-up backlog) fit and do not count.
    package mutating func push(_ frame: Frame, priority: FramePriority, exempt isExempt: Bool = false) -> Bool {
        let counted = byteCount - exemptCount
        let size = frame.encodedSize
        guard isExempt || counted + size <= limit || frame.knownType == .error else { return false }
        frames[priority.rawValue].append(frame)
        exempt[priority.rawValue].append(isExempt)
        sealed[priority.rawValue].append(sealing)
        byteCount += size
        if isExempt { exemptCount += size }
        return true
    }

    /// Takes frames, highest priority first, up to about `maximumBytes`, as bytes to write.
    package mutating func popBytes(maximumBytes: Int) -> [UInt8] {
        popSegment(maximumBytes: maximumBytes).bytes
    }

    /// Takes frames, highest priority first, up to about `maximumBytes`, all sealed or all plain:
    /// their bytes, and whether they go out sealed.
    package mutating func popSegment(maximumBytes: Int) -> (bytes: [UInt8], sealed: Bool) {
        var bytes: [UInt8] = []
        var segmentSealed: Bool?
        for priority in frames.indices {
            while heads[priority] < frames[priority].count {
                let frame = frames[priority][heads[priority]]
                let isSealed = sealed[priority][heads[priority]]
                let size = frame.encodedSize
                if let segmentSealed, segmentSealed != isSealed { return (bytes, segmentSealed) }
                if !bytes.isEmpty && bytes.count + size > maximumBytes { return (bytes, segmentSealed ?? isSealed) }
                segmentSealed = isSealed
                bytes += frame.encoded
                byteCount -= size
                if exempt[priority][heads[priority]] { exemptCount -= size }
                heads[priority] += 1
                if heads[priority] == frames[priority].count {
                    frames[priority].removeAll(keepingCapacity: true)
                    exempt[priority].removeAll(keepingCapacity: true)
                    sealed[priority].removeAll(keepingCapacity: true)
                    heads[priority] = 0
                    break
                }
            }
        }
        return (bytes, segmentSealed ?? false)
    }

    /// Drops everything queued.
    package mutating func removeAll() {
        frames = Array(repeating: [], count: FramePriority.allCases.count)
        exempt = Array(repeating: [], count: FramePriority.allCases.count)
        sealed = Array(repeating: [], count: FramePriority.allCases.count)
        heads = Array(repeating: 0, count: FramePriority.allCases.count)
        byteCount = 0
        exemptCount = 0
    }
}
