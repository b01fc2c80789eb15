import GalleryModel

/// The item fields a command may set directly: a title and an aspect ratio (`add`, `update`).
package struct ItemFieldValues: Codable, Hashable, Sendable {
    /// A title.
    package var title: String?
    /// An aspect ratio, width / height.
    package var aspect: Double?

    package init(title: String? = nil, aspect: Double? = nil) {
        self.title = title
        self.aspect = aspect
    }

    /// Why a value is outside `FieldLimits`, or nil.
    package var boundsProblem: String? {
        if let title, let problem = FieldLimits.problem(with: .text(title), for: .title) { return problem }
        if let aspect, let problem = FieldLimits.problem(with: .number(aspect), for: .aspectRatio) { return problem }
        return nil
    }
}
