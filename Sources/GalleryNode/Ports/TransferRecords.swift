/// Where a node records its transfers in flight, so that a restart resumes them with their
/// deadlines (GalleryStorage's `TransferJournal`).
package protocol TransferRecords: Sendable {
    /// Where the records are, for messages.
    var location: String { get }
    /// The transfers recorded; none when there is no record (the placeholders themselves are
    /// still resumed, from the op log).
    func load() -> [Transfer]
    /// Replaces the records by `transfers`, in this order.
    func save(_ transfers: [Transfer]) throws
}
