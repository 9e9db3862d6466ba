-- The migration benchmark's schema (MariaDB): the same tables and rows as schema-pg.sql.
SET SESSION foreign_key_checks = 0;
CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int NOT NULL DEFAULT 0, filler char(88));
CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL DEFAULT 0, filler char(84), FOREIGN KEY (bid) REFERENCES pgbench_branches (bid));
CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL DEFAULT 0, filler char(84), FOREIGN KEY (bid) REFERENCES pgbench_branches (bid));
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime datetime, filler char(22), KEY history_aid (aid), FOREIGN KEY (tid) REFERENCES pgbench_tellers (tid), FOREIGN KEY (bid) REFERENCES pgbench_branches (bid), FOREIGN KEY (aid) REFERENCES pgbench_accounts (aid));
CREATE TABLE categories (id int AUTO_INCREMENT PRIMARY KEY, name varchar(80) NOT NULL UNIQUE, parent_id int, FOREIGN KEY (parent_id) REFERENCES categories (id));
CREATE TABLE customers (id bigint AUTO_INCREMENT PRIMARY KEY, email varchar(120) NOT NULL UNIQUE, name varchar(100) NOT NULL, status varchar(10) NOT NULL DEFAULT 'active', score int NOT NULL DEFAULT 0 CHECK (score >= 0), created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP, KEY customers_name (name));
CREATE TABLE products (id int AUTO_INCREMENT PRIMARY KEY, category_id int NOT NULL, sku char(12) NOT NULL UNIQUE, title varchar(200) NOT NULL, price decimal(10,2) NOT NULL CHECK (price >= 0), created_at datetime NOT NULL DEFAULT CURRENT_TIMESTAMP, KEY products_cat_price (category_id, price), FOREIGN KEY (category_id) REFERENCES categories (id));
CREATE TABLE orders (id bigint AUTO_INCREMENT PRIMARY KEY, customer_id bigint NOT NULL, placed_at datetime NOT NULL, status varchar(10) NOT NULL DEFAULT 'new', total decimal(12,2) NOT NULL, KEY orders_cust_placed (customer_id, placed_at), KEY orders_placed (placed_at), FOREIGN KEY (customer_id) REFERENCES customers (id));
CREATE TABLE order_items (order_id bigint NOT NULL, line int NOT NULL, product_id int NOT NULL, qty int NOT NULL DEFAULT 1, price decimal(10,2) NOT NULL, PRIMARY KEY (order_id, line), KEY order_items_product (product_id), FOREIGN KEY (order_id) REFERENCES orders (id), FOREIGN KEY (product_id) REFERENCES products (id));
CREATE TABLE reviews (id int AUTO_INCREMENT PRIMARY KEY, product_id int NOT NULL, customer_id bigint NOT NULL, stars smallint NOT NULL CHECK (stars BETWEEN 1 AND 5), body text, KEY reviews_product (product_id), FOREIGN KEY (product_id) REFERENCES products (id), FOREIGN KEY (customer_id) REFERENCES customers (id));

INSERT INTO pgbench_branches SELECT seq, 0, NULL FROM seq_1_to_10;
INSERT INTO pgbench_tellers SELECT seq, 1 + (seq - 1) % 10, 0, NULL FROM seq_1_to_100;
INSERT INTO pgbench_accounts SELECT seq, 1 + (seq - 1) DIV 100000, CAST((seq * 7) % 10000 AS SIGNED) - 5000, CONCAT('a', seq) FROM seq_1_to_1000000;
INSERT INTO pgbench_history SELECT 1 + seq % 100, 1 + seq % 10, 1 + (seq * 37) % 1000000, CAST(seq % 1000 AS SIGNED) - 500, '2024-01-01' + INTERVAL seq SECOND, NULL FROM seq_1_to_100000;
INSERT INTO categories SELECT seq, CONCAT('cat', seq), IF(seq <= 10, NULL, 1 + seq % 10) FROM seq_1_to_200;
INSERT INTO customers SELECT seq, CONCAT('c', seq, '@example.com'), CONCAT('Name ', seq % 5000), IF(seq % 10 = 0, 'closed', 'active'), seq % 100, '2023-01-01' + INTERVAL seq MINUTE FROM seq_1_to_200000;
INSERT INTO products SELECT seq, 1 + seq % 200, CONCAT('SKU', LPAD(seq, 8, '0')), CONCAT('Product ', seq), ((seq * 13) % 100000) / 100.0, '2023-06-01' + INTERVAL seq MINUTE FROM seq_1_to_20000;
INSERT INTO orders SELECT seq, 1 + (seq * 7) % 200000, '2024-01-01' + INTERVAL (seq * 30) SECOND, 'paid', ((seq * 17) % 1000000) / 100.0 FROM seq_1_to_500000;
INSERT INTO order_items SELECT 1 + (seq - 1) DIV 3, 1 + (seq - 1) % 3, 1 + (seq * 11) % 20000, 1 + seq % 5, ((seq * 19) % 10000) / 100.0 FROM seq_1_to_1500000;
INSERT INTO reviews SELECT seq, 1 + (seq * 3) % 20000, 1 + (seq * 5) % 200000, 1 + seq % 5, CONCAT('review text ', seq, ' ', REPEAT('x', seq % 50)) FROM seq_1_to_100000;
SET SESSION foreign_key_checks = 1;
ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history, categories, customers, products, orders, order_items, reviews;
