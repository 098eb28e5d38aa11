def import_orders(rows):
    return [row for row in rows if row]
