create table product (id bigint primary key, stock int not null);
insert into product values (1, 10);
insert into product values (2, 10);
insert into product values (7, 10);
