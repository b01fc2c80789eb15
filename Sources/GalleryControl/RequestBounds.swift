import GalleryModel
import GalleryNode
import GalleryWire

/// The bounds of `FieldLimits` applied to a control request, before anything is carried out:
/// the command line checks them before it contacts the node (a usage error), and the node checks
/// them again before a command changes anything (an error answer).
public enum RequestBounds {
    /// The commands whose `gallery` names a gallery that ops will carry (not a lookup, a peer or
    /// an address).
    static let commandsNamingGalleries: Set<String> = ["new-gallery", "add", "move", "drag"]

    /// Why the request carries a value that no op may hold, or nil when every value is within the
    /// bounds: the gallery name, the title, the aspect ratio and each URL.
    public static func problem(with request: ControlRequest) -> String? {
        if commandsNamingGalleries.contains(request.command), let gallery = request.gallery,
           let problem = FieldLimits.problem(withGalleryName: gallery) {
            return problem
        }
        if let title = request.title, let problem = FieldLimits.problem(with: .text(title), for: .title) {
            return problem
        }
        if let aspect = request.aspect, let problem = FieldLimits.problem(with: .number(aspect), for: .aspectRatio) {
            return problem
        }
        for url in request.urls ?? [] {
            if let problem = FieldLimits.problem(with: .text(url), for: .url) { return problem }
        }
        return nil
    }

    /// Throws the problem of `problem(with:)`, if any, as the command's failure.
    static func check(_ request: ControlRequest) throws {
        if let problem = problem(with: request) { throw ControlFailure(problem) }
    }
}
