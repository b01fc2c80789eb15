import Foundation
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
}

/// The thumbnails of `DIR/blobs/derived/`.
extension DerivedBlobStore: DerivedBlobSource {}

/// A blob being received.
extension BlobWriter: BlobSink {}

/// A stored blob opened for a fetch.
extension StorageFile: BlobReader {}

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
