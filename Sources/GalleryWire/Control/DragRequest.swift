import GalleryModel

/// `drag`: a drop of items into a gallery, performed by the node (GalleryNode's `Drop`).
///
/// JSON: `{"items": [DragSource], "gallery": G, "index"?: I, "move": BOOL, "wait": BOOL, "timeout"?: S}`.
package struct DragRequest: Codable, Hashable, Sendable {
    /// The dragged items, in the order they land; at least one.
    package var items: [DragSource]
    /// The destination gallery.
    package var gallery: String
    /// Where the first item lands; appended at the end when nil.
    package var index: Int?
    /// Move the items (each source deleted once its copy is committed); copy them when false.
    package var move: Bool
    /// Answer a second time when every transfer has ended, with its outcome.
    package var wait: Bool
    /// Seconds a transfer may take before its placeholder is deleted; the node's default when nil.
    package var timeout: Double?

    package init(items: [DragSource], gallery: String, index: Int? = nil, move: Bool = false, wait: Bool = false,
                timeout: Double? = nil) {
        self.items = items
        self.gallery = gallery
        self.index = index
        self.move = move
        self.wait = wait
        self.timeout = timeout
    }

    /// Why a value of the request is out of bounds, or nil.
    package var boundsProblem: String? {
        if let problem = FieldLimits.problem(withGalleryName: gallery) { return problem }
        if let index, index < 0 { return "--at must be 0 or more" }
        if let timeout, !(timeout > 0 && timeout.isFinite) { return "the timeout must be a positive number of seconds" }
        return nil
    }
}
