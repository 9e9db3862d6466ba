-- The migration benchmark's schema (PostgreSQL): pgbench's four tables with their foreign keys and
-- a shop of six tables (self reference, composite key, secondary indexes, checks, defaults, serials).
CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int NOT NULL DEFAULT 0, filler char(88));
CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int NOT NULL REFERENCES pgbench_branches, tbalance int NOT NULL DEFAULT 0, filler char(84));
CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int NOT NULL REFERENCES pgbench_branches, abalance int NOT NULL DEFAULT 0, filler char(84));
CREATE TABLE pgbench_history (tid int REFERENCES pgbench_tellers, bid int REFERENCES pgbench_branches, aid int REFERENCES pgbench_accounts, delta int, mtime timestamp, filler char(22));
CREATE INDEX history_aid ON pgbench_history (aid);
CREATE TABLE categories (id serial PRIMARY KEY, name varchar(80) NOT NULL UNIQUE, parent_id int REFERENCES categories(id));
CREATE TABLE customers (id bigserial PRIMARY KEY, email varchar(120) NOT NULL UNIQUE, name varchar(100) NOT NULL, status varchar(10) NOT NULL DEFAULT 'active', score int NOT NULL DEFAULT 0 CHECK (score >= 0), created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX customers_name ON customers (name);
CREATE TABLE products (id serial PRIMARY KEY, category_id int NOT NULL REFERENCES categories(id), sku char(12) NOT NULL UNIQUE, title varchar(200) NOT NULL, price numeric(10,2) NOT NULL CHECK (price >= 0), created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE INDEX products_cat_price ON products (category_id, price);
CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(id), placed_at timestamp NOT NULL, status varchar(10) NOT NULL DEFAULT 'new', total numeric(12,2) NOT NULL);
CREATE INDEX orders_cust_placed ON orders (customer_id, placed_at);
CREATE INDEX orders_placed ON orders (placed_at);
CREATE TABLE order_items (order_id bigint NOT NULL REFERENCES orders(id), line int NOT NULL, product_id int NOT NULL REFERENCES products(id), qty int NOT NULL DEFAULT 1, price numeric(10,2) NOT NULL, PRIMARY KEY (order_id, line));
CREATE INDEX order_items_product ON order_items (product_id);
CREATE TABLE reviews (id serial PRIMARY KEY, product_id int NOT NULL REFERENCES products(id), customer_id bigint NOT NULL REFERENCES customers(id), stars smallint NOT NULL CHECK (stars BETWEEN 1 AND 5), body text);
CREATE INDEX reviews_product ON reviews (product_id);

INSERT INTO pgbench_branches SELECT i, 0, NULL FROM generate_series(1, 10) i;
INSERT INTO pgbench_tellers SELECT i, 1 + (i - 1) % 10, 0, NULL FROM generate_series(1, 100) i;
INSERT INTO pgbench_accounts SELECT i, 1 + (i - 1) / 100000, (i * 7) % 10000 - 5000, 'a' || i FROM generate_series(1, 1000000) i;
INSERT INTO pgbench_history SELECT 1 + i % 100, 1 + i % 10, 1 + (i * 37) % 1000000, i % 1000 - 500, timestamp '2024-01-01' + i * interval '1 second', NULL FROM generate_series(1, 100000) i;
INSERT INTO categories SELECT i, 'cat' || i, CASE WHEN i <= 10 THEN NULL ELSE 1 + i % 10 END FROM generate_series(1, 200) i;
INSERT INTO customers SELECT i, 'c' || i || '@example.com', 'Name ' || (i % 5000), CASE WHEN i % 10 = 0 THEN 'closed' ELSE 'active' END, i % 100, timestamp '2023-01-01' + i * interval '1 minute' FROM generate_series(1, 200000) i;
INSERT INTO products SELECT i, 1 + i % 200, 'SKU' || lpad(i::text, 8, '0'), 'Product ' || i, ((i * 13) % 100000) / 100.0, timestamp '2023-06-01' + i * interval '1 minute' FROM generate_series(1, 20000) i;
INSERT INTO orders SELECT i, 1 + (i * 7) % 200000, timestamp '2024-01-01' + i * interval '30 second', 'paid', ((i * 17) % 1000000) / 100.0 FROM generate_series(1, 500000) i;
INSERT INTO order_items SELECT 1 + (j - 1) / 3, 1 + (j - 1) % 3, 1 + (j * 11) % 20000, 1 + j % 5, ((j * 19) % 10000) / 100.0 FROM generate_series(1, 1500000) j;
INSERT INTO reviews SELECT i, 1 + (i * 3) % 20000, 1 + (i * 5) % 200000, 1 + i % 5, 'review text ' || i || ' ' || repeat('x', i % 50) FROM generate_series(1, 100000) i;
SELECT setval(pg_get_serial_sequence(t, 'id'), (SELECT 1000000)) FROM unnest(ARRAY['categories', 'customers', 'products', 'orders', 'reviews']) t;
ANALYZE;
