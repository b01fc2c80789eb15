import Foundation
import GalleryModel
@testable import GalleryStorage
import Testing

/// Writes `ops` to a new op log one record at a time and returns the file offset after each record
/// (`boundaries[0]` is the end of the header, `boundaries[i]` the end of record `i - 1`): where a test
/// damages, cuts or checks the file.
func writeOpLog(_ ops: [Op], at url: URL) throws -> [Int] {
    let (log, recovered, _) = try OpLogFile.open(at: url)
    #expect(recovered.isEmpty)
    var boundaries = [log.byteCount]
    for op in ops {
        try log.append([op])
        boundaries.append(log.byteCount)
    }
    try log.close()
    return boundaries
}
