import Foundation

/// A JSON value the web adapter writes: typed, so that no `Any` reaches an answer (a value of a
/// type JSON has no word for cannot be put in one), and written straight into bytes with the keys
/// sorted, as `JSONSerialization` with `.sortedKeys` and `.withoutEscapingSlashes` wrote them.
/// Literals build it (`["gallery": "trip", "lastEventId": 42]`); `WebJSON(optional)` is null for nil.
enum WebJSON: Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number; not finite is written as null.
    case number(Double)
    case string(String)
    case array([WebJSON])
    case object([String: WebJSON])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: WebJSON...) { self = .array(elements) }
    init(nilLiteral: ()) { self = .null }
    init(dictionaryLiteral elements: (String, WebJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    init(_ text: String?) { self = text.map(WebJSON.string) ?? .null }
    init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    init(_ value: Int64?) { self = value.map(WebJSON.integer) ?? .null }
    init(_ value: UInt64?) { self = value.map { $0 <= UInt64(Int64.max) ? .integer(Int64($0)) : .number(Double($0)) } ?? .null }
    init(_ value: Double?) { self = value.map(WebJSON.number) ?? .null }
    init(_ value: Bool?) { self = value.map(WebJSON.bool) ?? .null }
    init(_ texts: [String]) { self = .array(texts.map(WebJSON.string)) }

    /// The object's member `key` (nil for no such member or not an object); setting one on an
    /// object adds or replaces it.
    subscript(key: String) -> WebJSON? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The compact JSON text, keys sorted.
    ///
    /// - Complexity: O(b + m log m) for b bytes written and m members of the largest object.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .integer(let value): out += Array(String(value).utf8)
        case .number(let value):
            if !value.isFinite {
                out += Array("null".utf8)
            } else if value == value.rounded(), abs(value) < 1e15 {
                out += Array(String(Int64(value)).utf8)
            } else {
                out += Array("\(value)".utf8)
            }
        case .string(let text): WebItems.writeString(text, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                WebItems.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
