/// The value of one item field.
package enum FieldValue: Hashable, Sendable {
    /// The field is not set.
    case none
    /// A text value.
    case text(String)
    /// A floating-point value (aspect ratio).
    case number(Double)
    /// An integer value (byte size).
    case integer(Int64)
    /// An op ID (origin item).
    case id(OpID)

    /// The text, if this is a text value.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number value.
    package var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer value.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The op ID, if this is an ID value.
    package var id: OpID? {
        if case .id(let value) = self { return value }
        return nil
    }
}
