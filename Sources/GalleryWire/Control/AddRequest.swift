import GalleryModel

/// `add`: images inserted as one run, in the order given.
///
/// JSON: `{"sources": [AddSource], "gallery"?: G, "index"?: I, "title"?: T, "aspect"?: R}`.
package struct AddRequest: Codable, Hashable, Sendable {
    /// The images, at least one.
    package var sources: [AddSource]
    /// The gallery; the node's own (named after the node) when nil.
    package var gallery: String?
    /// Where the first image lands; at the end when nil.
    package var index: Int?
    /// The title of every image; a file's name or a URL's last component when nil.
    package var title: String?
    /// The aspect ratio (width / height) of every image; a file's is read from its header when nil.
    package var aspect: Double?

    package init(sources: [AddSource], gallery: String? = nil, index: Int? = nil, title: String? = nil, aspect: Double? = nil) {
        self.sources = sources
        self.gallery = gallery
        self.index = index
        self.title = title
        self.aspect = aspect
    }

    /// Why a value of the request is outside `FieldLimits`, or nil.
    package var boundsProblem: String? {
        if let gallery, let problem = FieldLimits.problem(withGalleryName: gallery) { return problem }
        if let problem = ItemFieldValues(title: title, aspect: aspect).boundsProblem { return problem }
        for case .url(let url) in sources {
            if let problem = FieldLimits.problem(with: .text(url), for: .url) { return problem }
        }
        return nil
    }
}
