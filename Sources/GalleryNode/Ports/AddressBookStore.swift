/// Where a node keeps its address book across restarts (GalleryStorage's `ChecksummedFile`,
/// `DIR/peers`).
package protocol AddressBookStore: Sendable {
    /// Where the book is, for messages.
    var location: String { get }
    /// The stored book.
    func loadBook() -> AddressBookLoad
    /// Replaces the stored book (whole or not at all, even across a crash).
    func saveBook(_ book: AddressBook) throws
}

/// What loading the address book found.
package enum AddressBookLoad: Sendable {
    /// No book yet.
    case absent
    case loaded(AddressBook)
    /// The stored book is damaged (why): the node starts with an empty one and rebuilds it.
    case damaged(String)
}
