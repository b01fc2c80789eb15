import Foundation
import GalleryIO
import GalleryNode
import GalleryStorage

// GalleryStorage's types serve the node core through GalleryNode's ports (Ports/): the one place
// where the two layers meet, so that neither imports the other.

/// The blob store of a node's directory, as the node core sees it.
extension BlobStore: BlobSource {
    /// `DIR/transfers.json`, next to the blobs.
    package var transferRecords: any TransferRecords {
        TransferJournal<Transfer>(file: directory.appendingPathComponent("transfers.json"))
    }

    /// Records the files in `DIR/in-place`.
    package func keep(_ files: [KeptFile]) throws(StorageError) {
        try inPlace.add(files.map { InPlaceFiles.Record(hash: $0.hash, path: $0.path, size: $0.size, modified: $0.modified) })
    }

    package func keptFiles() -> (count: Int, problems: [KeptFileProblem]) {
        let problems = inPlace.problems().map {
            KeptFileProblem(
                file: KeptFile(hash: $0.record.hash, path: $0.record.path, size: $0.record.size, modified: $0.record.modified),
                reason: $0.reason)
        }
        return (inPlace.count, problems)
    }

    /// A `syncfs` for the batch's bytes, the renames, a `syncfs` for them (`BlobStore.install(verified:)`).
    package func store(verified writers: [any BlobSink]) throws(StorageError) {
        try install(verified: writers.compactMap { $0 as? BlobWriter })
    }

    package func keptFileProblem(for hash: String) -> String? {
        let records = inPlace.records(for: hash)
        guard !records.isEmpty, size(of: hash) == nil else { return nil }
        return records.compactMap { record in inPlace.problem(with: record).map { "\(record.path): \($0)" } }.first
    }
}

/// The thumbnails of `DIR/blobs/derived/`.
extension DerivedBlobStore: DerivedBlobSource {}

/// `DIR/blobs/cache`: which originals are a cache.
extension ChecksummedFile: OriginalCacheRecords where Value == [CachedOriginal] {
    package func loadCache() -> [CachedOriginal] {
        if case .loaded(let entries) = load() { return entries }
        return []
    }

    package func saveCache(_ entries: [CachedOriginal]) throws {
        try save(entries)
    }
}

/// A blob being received.
extension BlobWriter: BlobSink {}

/// A stored blob opened for a fetch.
extension StorageFile: BlobReader {}

/// A blob opened from the store (`blobs/`, or a file kept in place, checked as it is read).
extension BlobFile: BlobReader {}

/// The journal of transfers in flight.
extension TransferJournal: TransferRecords where Record == Transfer {
    /// The journal's path.
    package var location: String { file.path }
}

/// `DIR/peers`: the address book.
extension ChecksummedFile: AddressBookStore where Value == AddressBook {
    package var location: String { file.path }

    package func loadBook() -> AddressBookLoad {
        switch load() {
        case .absent: .absent
        case .loaded(let book): .loaded(book)
        case .damaged(let reason): .damaged(reason)
        }
    }

    package func saveBook(_ book: AddressBook) throws {
        try save(book)
    }
}
