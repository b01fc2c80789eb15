/// What a drop did with one dragged item (`drag`).
public struct DropListing: Codable, Hashable, Sendable {
    /// The dragged item.
    public var source: String
    /// The item in the destination: the moved item itself, its copy, or its placeholder.
    public var item: String
    /// The destination gallery.
    public var gallery: String
    /// Where the item stood right after the drop.
    public var index: Int
    /// What the drop did with the item.
    public var action: DropAction
    /// The transfer filling the placeholder (its ID is the placeholder's), if any.
    public var transfer: String?
    /// How the transfer ended (`committed` or `failed: REASON`), in the answer to `wait`.
    public var outcome: String?

    public init(source: String, item: String, gallery: String, index: Int, action: DropAction, transfer: String?,
                outcome: String?) {
        self.source = source
        self.item = item
        self.gallery = gallery
        self.index = index
        self.action = action
        self.transfer = transfer
        self.outcome = outcome
    }
}
