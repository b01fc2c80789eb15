import GalleryModel

/// The item fields a command may set directly: a title and an aspect ratio (`add`, `update`).
public struct ItemFieldValues: Codable, Hashable, Sendable {
    /// A title.
    public var title: String?
    /// An aspect ratio, width / height.
    public var aspect: Double?

    public init(title: String? = nil, aspect: Double? = nil) {
        self.title = title
        self.aspect = aspect
    }

    /// Why a value is outside `FieldLimits`, or nil.
    public var boundsProblem: String? {
        if let title, let problem = FieldLimits.problem(with: .text(title), for: .title) { return problem }
        if let aspect, let problem = FieldLimits.problem(with: .number(aspect), for: .aspectRatio) { return problem }
        return nil
    }
}
