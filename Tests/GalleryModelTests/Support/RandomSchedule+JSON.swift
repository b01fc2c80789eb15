import Foundation
@testable import GallerySimulation

/// A schedule step as `gallery simulate` reads it.
extension RandomSchedule {
    /// One step in the schedule file format.
    static func json(_ step: Schedule.Step) -> String {
        var writer = JSONWriter()
        func text(_ value: String) -> (inout JSONWriter) -> Void { { $0.string(value) } }
        func raw(_ value: String) -> (inout JSONWriter) -> Void { { $0.raw(value) } }
        var entries: [(String, (inout JSONWriter) -> Void)]
        switch step {
        case .createGallery(let at, let name):
            entries = [("at", text(at)), ("createGallery", text(name))]
        case .insert(let at, let labels, let gallery, let index, let placeholders):
            entries = [
                ("at", text(at)),
                (placeholders ? "insertPlaceholder" : "insert", { writer in writer.array(labels) { $0.string($1) } }),
                ("gallery", text(gallery)), ("index", raw("\(index)")),
            ]
        case .commit(let at, let label):
            entries = [("at", text(at)), ("commit", text(label))]
        case .move(let at, let label, let gallery, let index):
            entries = [("at", text(at)), ("move", text(label)), ("gallery", text(gallery)), ("index", raw("\(index)"))]
        case .delete(let at, let label):
            entries = [("at", text(at)), ("delete", text(label))]
        case .update(let at, let label, let field, let value):
            let encoded: String = switch value {
            case .string(let string): { var inner = JSONWriter(); inner.string(string); return inner.text }()
            case .number(let number):
                number == number.rounded() && abs(number) < 1e15 ? "\(Int64(number))" : "\(number)"
            default: "null"
            }
            entries = [
                ("at", text(at)), ("update", text(label)), ("field", text(field.description)), ("value", raw(encoded)),
            ]
        case .trash(let at, let label):
            entries = [("at", text(at)), ("trash", text(label))]
        case .restore(let at, let label):
            entries = [("at", text(at)), ("restore", text(label))]
        case .renameGallery(let at, let name, let newName):
            entries = [("at", text(at)), ("renameGallery", text(name)), ("to", text(newName))]
        case .deleteGallery(let at, let name):
            entries = [("at", text(at)), ("deleteGallery", text(name))]
        case .sync(let from, let to, let shuffle, let duplicate):
            entries = [("sync", { writer in writer.array([from, to]) { $0.string($1) } })]
            if let shuffle { entries.append(("shuffle", raw("\(shuffle)"))) }
            entries.append(("duplicate", raw(duplicate ? "true" : "false")))
        case .syncAll:
            entries = [("syncAll", raw("true"))]
        }
        writer.object(entries.indices.map { $0 }, name: { entries[$0].0 }) { writer, index in
            entries[index].1(&writer)
        }
        return writer.text
    }
}
