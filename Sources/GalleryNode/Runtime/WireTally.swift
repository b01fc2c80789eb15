import Foundation
import GalleryWire
import Synchronization

/// What a set of connections wrote, by frame type, and the record layer's share (the `record`
/// frame headers and AEAD tags around the frames): where the bytes on the wire go. A simulation
/// hands one to all its nodes (`NodeEnvironment.wireTally`); production nodes keep none.
package final class WireTally: Sendable {
    /// Frames and bytes (header included) of one frame type.
    package struct Count: Hashable, Sendable {
        package var frames = 0
        package var bytes = 0

        package init(frames: Int = 0, bytes: Int = 0) {
            self.frames = frames
            self.bytes = bytes
        }
    }

    /// What was counted up to some moment.
    package struct Snapshot: Hashable, Sendable {
        /// Per frame type byte: the frames written inside records (or in the clear before them).
        package var byType: [UInt8: Count] = [:]
        /// Records sealed, and their bytes beyond the frames they carry (header and tag).
        package var records = Count()

        package init() {}

        /// Every byte counted.
        package var totalBytes: Int { byType.values.reduce(records.bytes) { $0 + $1.bytes } }

        /// What was counted since `earlier`.
        package func since(_ earlier: Snapshot) -> Snapshot {
            var result = Snapshot()
            for (type, count) in byType {
                let before = earlier.byType[type] ?? Count()
                let frames = count.frames - before.frames, bytes = count.bytes - before.bytes
                if frames != 0 || bytes != 0 { result.byType[type] = Count(frames: frames, bytes: bytes) }
            }
            result.records = Count(frames: records.frames - earlier.records.frames, bytes: records.bytes - earlier.records.bytes)
            return result
        }
    }

    private let counted = Mutex(Snapshot())

    package init() {}

    /// What was counted so far.
    package var snapshot: Snapshot { counted.withLock { $0 } }

    /// Counts the frames encoded in `plaintext` (whole frames, one after another), sealed into
    /// `sealedCount` bytes of records (nil: written in the clear).
    func count(plaintext: [UInt8], sealedCount: Int?) {
        var types: [(UInt8, Int)] = []
        var offset = 0
        while offset + FrameLimits.headerSize <= plaintext.count {
            let length = Int(plaintext[offset]) | Int(plaintext[offset + 1]) << 8
                | Int(plaintext[offset + 2]) << 16 | Int(plaintext[offset + 3]) << 24
            let size = FrameLimits.headerSize + length
            types.append((plaintext[offset + 4], size))
            offset += size
        }
        counted.withLock { counted in
            for (type, size) in types {
                counted.byType[type, default: Count()].frames += 1
                counted.byType[type, default: Count()].bytes += size
            }
            if let sealedCount {
                counted.records.frames += (plaintext.count + RecordSealer.maximumPlaintext - 1) / RecordSealer.maximumPlaintext
                counted.records.bytes += sealedCount - plaintext.count
            }
        }
    }
}
