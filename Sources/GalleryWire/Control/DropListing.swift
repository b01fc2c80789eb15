/// What a drop did with one dragged item (`drag`).
package struct DropListing: Codable, Hashable, Sendable {
    /// The dragged item.
    package var source: String
    /// The item in the destination: the moved item itself, its copy, or its placeholder.
    package var item: String
    /// The destination gallery.
    package var gallery: String
    /// Where the item stood right after the drop.
    package var index: Int
    /// What the drop did with the item.
    package var action: DropAction
    /// The transfer filling the placeholder (its ID is the placeholder's), if any.
    package var transfer: String?
    /// How the transfer ended (`committed` or `failed: REASON`), in the answer to `wait`.
    package var outcome: String?

    package init(source: String, item: String, gallery: String, index: Int, action: DropAction, transfer: String?,
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
